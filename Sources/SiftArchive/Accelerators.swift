import CZlib
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Optional accelerators, found at run time: ISA-L's streaming inflate and CRC-32 (`libisal.so.2`)
/// for gzip streams and libcrypto's SHA-256 (`libcrypto.so.3`, hardware SHA where the CPU has it). Neither
/// is needed to build or to run; when one is missing, fails its self-test, or `PBSIFT_PORTABLE` is
/// set to anything but `0` or the empty string, the portable path (zlib, the Swift SHA-256) is used.
/// Results are the same byte for byte either way.
public enum Accelerators {
    /// True when `PBSIFT_PORTABLE` asks for the portable path.
    public static let portableForced: Bool = {
        guard let v = getenv("PBSIFT_PORTABLE") else { return false }
        let s = String(cString: v)
        return !s.isEmpty && s != "0"
    }()

    /// ISA-L's inflate, when loaded and self-tested.
    static let isal: ISAL? = portableForced ? nil : ISAL.load()
    /// libcrypto's SHA-256, when loaded and self-tested.
    static let crypto: Crypto? = portableForced ? nil : Crypto.load()

    /// Whether gzip streams are inflated by ISA-L.
    public static var acceleratedInflate: Bool { isal != nil }
    /// Whether SHA-256 runs in libcrypto.
    public static var acceleratedSHA256: Bool { crypto != nil }

    /// zlib's version, as the library reports it.
    public static var zlibVersion: String { String(cString: CZlib.zlibVersion()) }

    /// The engines in use, one line each, as `pbsift --version` prints them.
    public static var engineLines: [String] {
        let zlib = "zlib \(zlibVersion)"
        var inflate = "inflate: \(zlib)"
        if let isal {
            inflate = "inflate: isa-l \(isal.version) (gzip), \(zlib) (zip)"
            if isal.crc32 != nil { inflate += "; crc-32: isa-l" }
        }
        var sha = "sha256: portable"
        if let crypto { sha = "sha256: libcrypto \(crypto.version)" + (cpuHasSHA ? " (SHA-NI)" : "") }
        if portableForced { inflate += " (PBSIFT_PORTABLE)"; sha += " (PBSIFT_PORTABLE)" }
        return [inflate, sha]
    }

    /// Whether the CPU advertises SHA instructions (Linux: `sha_ni` on x86, `sha2` on arm64).
    static var cpuHasSHA: Bool {
        guard let f = fopen("/proc/cpuinfo", "r") else { return false }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 8192)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if s.hasPrefix("flags") || s.hasPrefix("Features") {
                let words = s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                return words.contains("sha_ni") || words.contains("sha2")
            }
        }
        return false
    }

    /// `dlopen` the first of `names` that loads; nil when none does.
    static func open(_ names: [String]) -> (handle: UnsafeMutableRawPointer, name: String)? {
        for n in names {
            if let h = dlopen(n, RTLD_NOW | RTLD_LOCAL) { return (h, n) }
        }
        return nil
    }

    /// The file a loaded library was mapped from (Linux: /proc/self/maps), by a part of its name.
    static func mappedPath(containing part: String) -> String? {
        guard let f = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if s.contains(part), let slash = s.firstIndex(of: "/") {
                return String(s[slash...].prefix(while: { $0 != "\n" }))
            }
        }
        return nil
    }
}

// MARK: ISA-L

/// ISA-L's raw-deflate streaming inflate through `dlsym`. The `inflate_state` is opaque to the
/// build: its first fields (pointers and counts) and `block_state` are read at fixed offsets of
/// ISA-L 2.x, and a self-test at load time checks them against zlib before ISA-L is used.
final class ISAL: @unchecked Sendable {
    typealias Init = @convention(c) (UnsafeMutableRawPointer) -> Void
    typealias Inflate = @convention(c) (UnsafeMutableRawPointer) -> Int32
    typealias CRC = @convention(c) (UInt32, UnsafePointer<UInt8>?, UInt64) -> UInt32

    let initState: Init
    let inflate: Inflate
    let version: String
    /// ISA-L's CRC-32 of gzip (`crc32_gzip_refl`, folding with carry-less multiplies), when it
    /// agrees with zlib's on the self-test.
    private(set) var crc32: CRC?

    // struct inflate_state (isa-l 2.x, igzip_lib.h)
    static let stateSize = 128 * 1024 // 87 368 bytes in 2.30; room to spare
    static let nextOut = 0, availOut = 8, nextIn = 16, availIn = 32, readInLength = 36, blockState = 21160, tmpInSize = 21206
    static let blockFinish: UInt32 = 5 // ISAL_BLOCK_FINISH

    private init(initState: @escaping Init, inflate: @escaping Inflate, version: String) {
        self.initState = initState
        self.inflate = inflate
        self.version = version
    }

    static func load() -> ISAL? {
        guard let (h, _) = Accelerators.open(["libisal.so.2", "libisal.2.dylib", "libisal.so"]),
            let i = dlsym(h, "isal_inflate_init"), let f = dlsym(h, "isal_inflate")
        else { return nil }
        // the soname carries no minor version: read it from the file name (libisal.so.2.0.30 -> 2.30)
        var version = "2"
        if let path = Accelerators.mappedPath(containing: "libisal"), let r = path.range(of: ".so.") {
            let parts = path[r.upperBound...].split(separator: ".")
            if parts.count == 3, parts[1] == "0" { version = "\(parts[0]).\(parts[2])" } else { version = parts.joined(separator: ".") }
        }
        let lib = ISAL(initState: unsafeBitCast(i, to: Init.self), inflate: unsafeBitCast(f, to: Inflate.self), version: version)
        guard lib.selfTest() else { return nil }
        if let c = dlsym(h, "crc32_gzip_refl") {
            let crc = unsafeBitCast(c, to: CRC.self)
            if crcSelfTest(crc) { lib.crc32 = crc }
        }
        return lib
    }

    /// Inflates a raw deflate stream made by zlib (followed by bytes that are not deflate data) in
    /// one call and checks the output, the end of the stream and the bytes consumed.
    private func selfTest() -> Bool {
        var text = [UInt8]()
        var x: UInt32 = 2463534242
        for i in 0..<50_000 {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            text.append(i % 61 == 60 ? 10 : UInt8(97 + x % 7))
        }
        guard let deflated = zlibDeflateRaw(text) else { return false }
        let input = deflated + [0x1f, 0x8b, 0x08, 0x00, 0xAA, 0xBB, 0xCC, 0xDD]
        let s = ISALStream(lib: self)
        var out = [UInt8](repeating: 0, count: text.count + 64)
        let r: (consumed: Int, produced: Int, rc: Int32, ended: Bool) = input.withUnsafeBytes { inp in
            out.withUnsafeMutableBytes { o in s.run(inp.baseAddress, inp.count, o.baseAddress!, o.count) }
        }
        return r.rc == 0 && r.ended && r.produced == text.count && r.consumed == deflated.count
            && Array(out[0..<text.count]) == text
    }
}

/// Checks a CRC-32 function against zlib's on every length up to 300 bytes, a long span, and chained.
private func crcSelfTest(_ crc: ISAL.CRC) -> Bool {
    var data = [UInt8](repeating: 0, count: 70_000)
    var x: UInt32 = 2463534242
    for i in data.indices { x ^= x << 13; x ^= x >> 17; x ^= x << 5; data[i] = UInt8(truncatingIfNeeded: x) }
    return data.withUnsafeBufferPointer { d -> Bool in
        let p = d.baseAddress!
        for n in Array(0...300) + [4096, 65_537, 70_000] {
            if crc(0, p, UInt64(n)) != UInt32(truncatingIfNeeded: CZlib.crc32(0, p, uInt(n))) { return false }
        }
        let whole = UInt32(truncatingIfNeeded: CZlib.crc32(0, p, uInt(d.count)))
        return crc(crc(0, p, 12_345), p + 12_345, UInt64(d.count - 12_345)) == whole
    }
}

/// Raw deflate of `data` with zlib (level 6), for the self-test.
func zlibDeflateRaw(_ data: [UInt8]) -> [UInt8]? {
    var s = z_stream()
    guard pbsift_deflateInit2(&s, 6, -15) == Z_OK else { return nil }
    defer { deflateEnd(&s) }
    var out = [UInt8](repeating: 0, count: data.count + data.count / 8 + 1024)
    var input = data
    let rc: Int32 = input.withUnsafeMutableBytes { i in
        out.withUnsafeMutableBytes { o in
            s.next_in = i.baseAddress?.assumingMemoryBound(to: Bytef.self)
            s.avail_in = UInt32(i.count)
            s.next_out = o.baseAddress?.assumingMemoryBound(to: Bytef.self)
            s.avail_out = UInt32(o.count)
            return deflate(&s, Z_FINISH)
        }
    }
    guard rc == Z_STREAM_END else { return nil }
    return Array(out[0..<Int(s.total_out)])
}

/// One ISA-L inflate stream (its state is about 85 KiB).
final class ISALStream {
    let lib: ISAL
    private let state: UnsafeMutableRawPointer

    init(lib: ISAL) {
        self.lib = lib
        state = UnsafeMutableRawPointer.allocate(byteCount: ISAL.stateSize, alignment: 64)
        state.initializeMemory(as: UInt8.self, repeating: 0, count: ISAL.stateSize)
        lib.initState(state)
    }

    deinit { state.deallocate() }

    func reset() { lib.initState(state) }

    /// One call: input bytes consumed, output bytes produced, ISA-L's return code, whether the
    /// deflate stream ended. At the end, the whole bytes ISA-L read past the stream (at most 8, in its
    /// bit buffer) are given back: `consumed` excludes them and can be negative (down to -8) when
    /// they were handed in by an earlier call. rc -100: the stream ended with input held in ISA-L's
    /// own buffer, which cannot be given back.
    func run(_ input: UnsafeRawPointer?, _ inCount: Int, _ output: UnsafeMutableRawPointer, _ outCount: Int)
        -> (consumed: Int, produced: Int, rc: Int32, ended: Bool)
    {
        let inAvail = UInt32(clamping: inCount)
        let outAvail = UInt32(clamping: outCount)
        state.storeBytes(of: input, toByteOffset: ISAL.nextIn, as: UnsafeRawPointer?.self)
        state.storeBytes(of: input == nil ? 0 : inAvail, toByteOffset: ISAL.availIn, as: UInt32.self)
        state.storeBytes(of: output, toByteOffset: ISAL.nextOut, as: UnsafeMutableRawPointer?.self)
        state.storeBytes(of: outAvail, toByteOffset: ISAL.availOut, as: UInt32.self)
        let rc = lib.inflate(state)
        let leftIn = state.load(fromByteOffset: ISAL.availIn, as: UInt32.self)
        let leftOut = state.load(fromByteOffset: ISAL.availOut, as: UInt32.self)
        let ended = state.load(fromByteOffset: ISAL.blockState, as: UInt32.self) == ISAL.blockFinish
        state.storeBytes(of: nil, toByteOffset: ISAL.nextIn, as: UnsafeRawPointer?.self)
        state.storeBytes(of: nil, toByteOffset: ISAL.nextOut, as: UnsafeMutableRawPointer?.self)
        var consumed = input == nil ? 0 : Int(inAvail &- min(leftIn, inAvail))
        let produced = Int(outAvail &- min(leftOut, outAvail))
        if ended && rc == 0 {
            let bits = state.load(fromByteOffset: ISAL.readInLength, as: Int32.self)
            consumed -= Int(max(0, min(bits, 64)) / 8)
            if state.load(fromByteOffset: ISAL.tmpInSize, as: Int16.self) != 0 { return (consumed, produced, -100, false) }
        }
        return (consumed, produced, rc, ended)
    }

    static func describe(_ rc: Int32) -> String {
        switch rc {
        case -1: return "invalid deflate block"
        case -2: return "invalid deflate symbol"
        case -3: return "invalid lookback distance"
        case -100: return "stream ended inside isa-l's input buffer"
        default: return "inflate error \(rc)"
        }
    }
}

// MARK: libcrypto

/// libcrypto's one-shot and EVP SHA-256 through `dlsym` (OpenSSL 3 or 1.1).
final class Crypto: @unchecked Sendable {
    typealias OneShot = @convention(c) (UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    typealias NewCtx = @convention(c) () -> OpaquePointer?
    typealias FreeCtx = @convention(c) (OpaquePointer?) -> Void
    typealias GetMD = @convention(c) () -> OpaquePointer?
    typealias Init = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    typealias Update = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    typealias Final = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32
    typealias Copy = @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    typealias Version = @convention(c) (Int32) -> UnsafePointer<CChar>?

    let oneShot: OneShot
    let newCtx: NewCtx
    let freeCtx: FreeCtx
    let md: OpaquePointer
    let digestInit: Init
    let update: Update
    let final: Final
    let copy: Copy
    let version: String

    private init?(_ h: UnsafeMutableRawPointer) {
        func sym<T>(_ name: String, _: T.Type) -> T? {
            guard let p = dlsym(h, name) else { return nil }
            return unsafeBitCast(p, to: T.self)
        }
        guard let oneShot = sym("SHA256", OneShot.self),
            let newCtx = sym("EVP_MD_CTX_new", NewCtx.self),
            let freeCtx = sym("EVP_MD_CTX_free", FreeCtx.self),
            let getMD = sym("EVP_sha256", GetMD.self), let md = getMD(),
            let digestInit = sym("EVP_DigestInit_ex", Init.self),
            let update = sym("EVP_DigestUpdate", Update.self),
            let final = sym("EVP_DigestFinal_ex", Final.self),
            let copy = sym("EVP_MD_CTX_copy_ex", Copy.self)
        else { return nil }
        self.oneShot = oneShot
        self.newCtx = newCtx
        self.freeCtx = freeCtx
        self.md = md
        self.digestInit = digestInit
        self.update = update
        self.final = final
        self.copy = copy
        var v = "3"
        if let f = sym("OpenSSL_version", Version.self), let s = f(0) {
            // "OpenSSL 3.0.19 1 Jul 2025" -> "3.0.19"
            let words = String(cString: s).split(separator: " ")
            if words.count > 1 { v = String(words[1]) }
        }
        version = v
    }

    static func load() -> Crypto? {
        guard let (h, _) = Accelerators.open(["libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.3.dylib"]),
            let c = Crypto(h)
        else { return nil }
        // FIPS 180-2 example: SHA-256("abc")
        let expected: [UInt8] = [
            0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
            0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad
        ]
        var out = [UInt8](repeating: 0, count: 32)
        let abc: [UInt8] = [0x61, 0x62, 0x63]
        let ok = abc.withUnsafeBytes { a in out.withUnsafeMutableBufferPointer { c.oneShot(a.baseAddress, 3, $0.baseAddress) != nil } }
        return ok && out == expected ? c : nil
    }
}

/// One libcrypto digest context; copied before a shared copy is changed.
final class EVPContext: @unchecked Sendable {
    let lib: Crypto
    let ctx: OpaquePointer?

    init?(lib: Crypto) {
        self.lib = lib
        ctx = lib.newCtx()
        guard ctx != nil, lib.digestInit(ctx, lib.md, nil) == 1 else { return nil }
    }

    init?(copying other: EVPContext) {
        lib = other.lib
        ctx = lib.newCtx()
        guard ctx != nil, lib.copy(ctx, other.ctx) == 1 else { return nil }
    }

    deinit { lib.freeCtx(ctx) }
}
