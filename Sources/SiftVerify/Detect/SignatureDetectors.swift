import SiftCore

// Formats that identify themselves by a signature inside or at the end of the value rather than by a
// prefix: Microsoft's identifiable Azure keys (a service's four characters at a fixed place),
// New Relic's license keys (`NRAL` last), DeepL's free keys (`:fx` after a UUID), and tokens whose
// first characters are digits (Bitwarden's `0.…`, Zoho's `1000.…`). Each is anchored
// on its signature, so the engine's one pass decides which of them run.

private let azureKeyBody = ByteSet("A-Za-z0-9+/_-")
private let alnumSet = ByteSet.alnum
private let padding = ByteSet("=")
/// What may not stand just before a token that starts with digits and a dot (`10.0.1`, `v1000.5`).
private let numberContext = ByteSet("A-Za-z0-9.")

/// Microsoft's identifiable keys place a service's signature at a fixed offset of a base64 key of a
/// fixed length (`=` padding counted): (characters before the signature, whole length).
private let azureLayouts: [(before: Int, total: Int)] = [(76, 88), (76, 84), (44, 56), (33, 44), (42, 52)]
/// The signatures: Storage `+ASt`, Cosmos DB `ACDb`, API Management `APIM`, Functions `AzFu`,
/// Service Bus `+ASb`, Event Hubs `+AEh`, Relay `+ARm`, IoT Hub `AIoT`, AI Search `AzSe`, Container
/// Registry `+ACR`, Cache for Redis `AzCa`, DevOps personal access tokens `AZDO`.
let azureKeySignatures = ["+ASt", "ACDb", "APIM", "AzFu", "+ASb", "+AEh", "+ARm", "AIoT", "AzSe", "+ACR", "AzCa", "AZDO"]

func signatureDetectors() -> [Detector] {
    var d: [Detector] = []
    var azure = Detector(
        "azure-identifiable-key", "Microsoft Azure identifiable key (Storage, Cosmos DB, Functions, Service Bus, DevOps …)", .critical,
        anchors: azureKeySignatures
    ) { t, p, _ in
        let before = t.runBack(p, azureKeyBody, max: 77)
        guard before >= 33, t.boundaryBefore(p - before, azureKeyBody) else { return nil }
        let after = t.run(p + 4, azureKeyBody, max: 12)
        var end = p + 4 + after
        while end < t.count && end - (p + 4 + after) < 2 && t[end] == UInt8(ascii: "=") { end += 1 }
        guard t.boundaryAt(end, azureKeyBody), t.boundaryAt(end, padding) else { return nil }
        let total = before + (end - p)
        guard azureLayouts.contains(where: { $0.before == before && $0.total == total }) else { return nil }
        guard mixedAll(t, p - before, p) else { return nil }
        return DetMatch(start: p - before, end: end)
    }
    azure.declaration.looksAt =
        "a base64 key of 44, 52, 56, 84 or 88 characters holding a service's signature (+ASt, ACDb, AzFu, +ASb, AZDO …) at its fixed place"
    d.append(azure)

    // New Relic license (ingest) keys: 36 hex digits and `NRAL`.
    var newRelic = Detector("new-relic-license-key", "New Relic license key", .high, anchors: ["NRAL"]) { t, p, _ in
        guard p >= 36, t.runBack(p, .hexLower, max: 37) == 36, t.boundaryBefore(p - 36), t.boundaryAt(p + 4) else { return nil }
        guard mixed(t, p - 36, p) else { return nil }
        return DetMatch(start: p - 36, end: p + 4)
    }
    newRelic.declaration.looksAt = "36 lower-case hex digits and NRAL"
    d.append(newRelic)

    // DeepL's keys of its free plan: a UUID and `:fx`.
    var deepl = Detector("deepl-api-key", "DeepL API key (free plan)", .high, anchors: [":fx"]) { t, p, _ in
        guard p >= 36, Shape.isUUID(t.b, p - 36), t.boundaryBefore(p - 36, .hex), t.boundaryAt(p + 3) else { return nil }
        return DetMatch(start: p - 36, end: p + 3)
    }
    deepl.declaration.looksAt = "a UUID and :fx"
    d.append(deepl)

    // Bitwarden Secrets Manager access tokens: `0.`, the client's UUID, `.`, its secret, `:`, the key in base64.
    var bitwarden = Detector("bitwarden-access-token", "Bitwarden Secrets Manager access token", .critical, anchors: ["0."]) {
        t, p, _ in
        guard t.boundaryBefore(p, numberContext), p + 2 + 36 < t.count, Shape.isUUID(t.b, p + 2) else { return nil }
        var i = p + 38
        guard t[i] == UInt8(ascii: ".") else { return nil }
        let secret = t.run(i + 1, alnumSet, max: 41)
        guard (20...40).contains(secret), mixed(t, i + 1, i + 1 + secret) else { return nil }
        i += 1 + secret
        guard i < t.count, t[i] == UInt8(ascii: ":") else { return nil }
        let key = t.run(i + 1, .b64pad, max: 46)
        guard (22...44).contains(key), t.boundaryAt(i + 1 + key, .b64pad) else { return nil }
        return DetMatch(start: p, end: i + 1 + key)
    }
    bitwarden.declaration.looksAt = "0., a UUID, ., a secret of 20–40 of [0-9A-Za-z], :, a base64 key"
    d.append(bitwarden)

    // Zoho OAuth access and refresh tokens: `1000.`, 32 hex digits, `.`, 32 hex digits.
    var zoho = Detector("zoho-oauth-token", "Zoho OAuth token", .high, anchors: ["1000."]) { t, p, _ in
        guard t.boundaryBefore(p, numberContext), t.run(p + 5, .hexLower, max: 33) == 32, p + 37 < t.count,
            t[p + 37] == UInt8(ascii: "."), t.run(p + 38, .hexLower, max: 33) == 32, t.boundaryAt(p + 70)
        else { return nil }
        return DetMatch(start: p, end: p + 70)
    }
    zoho.declaration.looksAt = "1000., 32 hex digits, ., 32 hex digits"
    d.append(zoho)
    return d
}
