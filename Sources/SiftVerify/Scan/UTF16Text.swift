/// UTF-16 text as UTF-8: with a byte-order mark (`FF FE`, `FE FF`), or without one when it reads as
/// ASCII with every other byte zero (how UTF-16 writes English text), little- or big-endian.
enum UTF16Text {
    static func decode(_ b: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard b.count >= 4, b.count % 2 == 0 else { return nil }
        var little: Bool
        var from = 0
        if b[0] == 0xFF && b[1] == 0xFE {
            little = true
            from = 2
        } else if b[0] == 0xFE && b[1] == 0xFF {
            little = false
            from = 2
        } else {
            // No mark: the first character's high byte is zero (ASCII text), then most even (or odd)
            // bytes zero throughout.
            guard (b[0] == 0) != (b[1] == 0), (b[2] == 0) != (b[3] == 0) else { return nil }
            let pairs = min(b.count / 2, 4096)
            var zeroHigh = 0, zeroLow = 0
            for k in 0..<pairs {
                if b[2 * k + 1] == 0 && b[2 * k] != 0 { zeroHigh += 1 }
                if b[2 * k] == 0 && b[2 * k + 1] != 0 { zeroLow += 1 }
            }
            guard pairs >= 4, max(zeroHigh, zeroLow) * 10 >= pairs * 9 else { return nil }
            little = zeroHigh > zeroLow
        }
        var units: [UInt16] = []
        units.reserveCapacity((b.count - from) / 2)
        var i = from
        while i + 1 < b.count {
            units.append(little ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i]) << 8 | UInt16(b[i + 1]))
            i += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}
