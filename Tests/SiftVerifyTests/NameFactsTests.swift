import Testing
@testable import SiftVerify

/// The facts the scanner caches per name are the lists' own answers, fresh or cached, and a name
/// whose hash collides with a cached one is looked up, never given the other name's facts.
@Suite struct NameFactsTests {
    static let names = [
        "Authorization", "authorization", "AUTHORIZATION ", "Location", "location", "Link", "link", "Referer", "Content-Location",
        "Cookie", "Set-Cookie", "X-Api-Key", "X-Secret-Thing", "Accept", "", "password", "accessToken", "nextPageToken",
        "x" + String(repeating: "y", count: 40) + "authorization", String(repeating: "z", count: 31) + "k"
    ]

    @Test func cachedFactsAreTheListsAnswers() {
        let scanner = ContentScanner(config: VerifyConfig(extraHeaders: ["X-Secret-Thing"]))
        for round in 0..<2 {
            for name in NameFactsTests.names {
                var k = name
                k.withUTF8 { raw in
                    let f = scanner.nameFacts(raw)
                    #expect(f.headerListed == scanner.headerNames.contains(raw: raw), "\(name) \(round)")
                    #expect(f.urlHeader == ContentScanner.urlHeaderNames.contains(raw: raw), "\(name) \(round)")
                    #expect(f.linkHeader == ContentScanner.linkHeaderName.contains(raw: raw), "\(name) \(round)")
                    #expect(f.bodyListed == scanner.bodyNames.contains(raw: raw), "\(name) \(round)")
                    #expect(f.hints == NameHints.of(raw: raw), "\(name) \(round)")
                }
            }
        }
        var known = "Authorization"
        #expect(known.withUTF8 { scanner.nameFacts($0).headerListed })
        var link = "Link"
        #expect(link.withUTF8 { scanner.nameFacts($0).linkHeader && scanner.nameFacts($0).urlHeader })
    }

    @Test func aCollidingNameIsLookedUp() {
        let scanner = ContentScanner(config: VerifyConfig())
        func facts(_ name: String) -> NameFacts {
            var k = name
            return k.withUTF8 { scanner.nameFacts($0, hash: 0x5151_0000_0000_0001) }
        }
        #expect(!facts("Accept").headerListed)
        #expect(facts("Authorization").headerListed)
        #expect(!facts("Accept").headerListed)
        #expect(facts("Location").urlHeader)
        #expect(!facts("Accept").urlHeader)
    }
}
