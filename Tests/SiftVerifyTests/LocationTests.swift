import Foundation
import Testing
@testable import SiftCore
@testable import SiftVerify

private typealias H = Harness

private func pairs(_ fs: [Finding]) -> [String] { fs.map { "\($0.rule) @ \($0.location ?? "")" } }

private let jwt = Fake.jwtHeader(seed: 1) + ".eyJ" + Fake.s(40, Fake.b64url, seed: 2) + "." + Fake.s(43, Fake.b64url, seed: 3)
private let ghToken = "ghp_" + Fake.s(36, Fake.alnum, seed: 15)
private let weak = "hunter" + "2"

@Suite struct LocationTests {
    @Test func requestAndResponseHeaders() throws {
        let f = try H.run([
            H.network(
                requestHeaders: [("Authorization", "Bearer " + jwt), ("X-Request-Id", "req_" + Fake.uuid())],
                responseHeaders: [("Set-Cookie", "sid=" + weak), ("Cookie", "***")])
        ])
        #expect(pairs(f) == ["redaction.header @ request.headers[Authorization]", "redaction.header @ response.headers[Set-Cookie]"])
        #expect(f[0].severity == .critical) // the value is also a JWT
        #expect(f[1].severity == .high) // harmless-looking, still a leak
        #expect(f[0].seq == 1 && f[0].line == 1 && f[0].recordId == "rec_1" && f[0].sessionId == H.sessionId)
        #expect(f[0].preview == SecretMask.preview("Bearer " + jwt))
        #expect(f[0].fingerprint == SecretMask.fingerprint("Bearer " + jwt))
    }

    @Test func headerNamesAreNormalised() throws {
        let f = try H.run([
            H.network(requestHeaders: [("x_api_key", "abc"), ("X-PALBASE-USER-TOKEN", "tok"), ("proxy-authorization", "***")])
        ])
        #expect(
            Set(pairs(f)) == ["redaction.header @ request.headers[x_api_key]", "redaction.header @ request.headers[X-PALBASE-USER-TOKEN]"])
    }

    @Test func maskedBearerIsStillNotExactlyTheMask() throws {
        let f = try H.run([H.network(requestHeaders: [("Authorization", "Bearer ***")])])
        #expect(pairs(f) == ["redaction.header @ request.headers[Authorization]"])
    }

    @Test func queryOfUrlAndOfEveryTransaction() throws {
        let f = try H.run([
            H.network(
                url: "https://api.example.test/cb?code=" + weak + "&state=xyz&access_token=***",
                transactions: [
                    "https://api.example.test/cb?code=%2A%2A%2A",
                    "https://api.example.test/cb?Code=" + weak
                ])
        ])
        #expect(Set(pairs(f)) == ["redaction.query @ request.url ?code", "redaction.query @ metrics.transactions[1].url ?Code"])
    }

    @Test func fragmentParametersAndShapesInUnlistedParameters() throws {
        let f = try H.run([H.network(url: "https://app.example.test/cb?next=" + ghToken + "#access_token=" + weak)])
        #expect(Set(pairs(f)) == ["secret.github-token @ request.url ?next", "redaction.query @ request.url #access_token"])
    }

    @Test func jsonBodyFieldsAtAnyDepthAndInArrays() throws {
        let req = #"{"grant_type":"password","items":[{"password":"\#(weak)"},{"password":"***"}],"otp":123456}"#
        let resp = #"{"data":{"session":{"refreshToken":"\#(weak)x","expires_in":3600,"token_type":"Bearer"}}}"#
        let f = try H.run([H.network(requestBody: H.textBody(req), responseBody: H.textBody(resp))])
        #expect(
            pairs(f) == [
                "redaction.body-field @ request.body $.items[0].password", "redaction.body-field @ request.body $.otp",
                "redaction.body-field @ response.body $.data.session.refreshToken"
            ])
    }

    @Test func escapedBodyTextIsDecodedBeforeMatching() throws {
        // Escapes inside the body document: quotes, newlines, \/ and a \u-spelled anchor and key.
        let u = "\\u0067hp_" + String(ghToken.dropFirst(4))
        let body = #"{"note":"say \"hi\"\n\#(ghToken)","url":"https:\/\/x.test\/a","pass\u0077ord":"\#(weak)","k":"\#(u)","q":"a\\b"}"#
        let f = try H.run([H.network(requestBody: H.textBody(body))])
        #expect(
            pairs(f) == [
                "redaction.body-field @ request.body $.password", "secret.github-token @ request.body $.k",
                "secret.github-token @ request.body $.note"
            ])
        #expect(f.filter { $0.rule == "secret.github-token" }.allSatisfy { $0.fingerprint == SecretMask.fingerprint(ghToken) })
    }

    @Test func bodyFieldHoldingANestedObjectOrArray() throws {
        let body = #"{"secret":{"value":"\#(weak)"},"token":["a1b2c3"]}"#
        let f = try H.run([H.network(requestBody: H.textBody(body))])
        #expect(pairs(f) == ["redaction.body-field @ request.body $.secret.value", "redaction.body-field @ request.body $.token[0]"])
    }

    @Test func formEncodedBody() throws {
        let body = "grant_type=password&username=bob&password=" + weak + "&client_secret=%2A%2A%2A"
        let f = try H.run([H.network(requestBody: H.textBody(body, "application/x-www-form-urlencoded"))])
        #expect(pairs(f) == ["redaction.form-field @ request.body form:password"])
    }

    @Test func formBodyWithoutContentTypeIsSniffed() throws {
        let f = try H.run([H.network(requestBody: H.textBody("refresh_token=" + weak + "&scope=all", "text/plain"))])
        #expect(pairs(f) == ["redaction.form-field @ request.body form:refresh_token"])
    }

    @Test func multipartParts() throws {
        let b = "XyZb0undary"
        let body =
            "--\(b)\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nbob\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\(weak)\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"note\":\"\(ghToken)\"}\r\n"
            + "--\(b)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\u{1}\u{0}\u{2}PNG\r\n"
            + "--\(b)--\r\n"
        let f = try H.run([H.network(requestBody: H.textBody(body, "multipart/form-data; boundary=\(b)"))])
        #expect(
            pairs(f) == [
                "redaction.multipart-field @ request.body multipart:password",
                "secret.github-token @ request.body multipart:meta $.note"
            ])
    }

    @Test func base64BodyDecodingToText() throws {
        let json = Array(#"{"access_token":"\#(weak)"}"#.utf8)
        let image: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array(repeating: 0, count: 64)
        let f = try H.run([H.network(requestBody: H.base64Body(json), responseBody: H.base64Body(image, "image/png"))])
        #expect(pairs(f) == ["redaction.body-field @ request.body $.access_token"])
    }

    @Test func blobBodiesReportedForEveryReferencingRecordEitherOrder() throws {
        let blob = Array(#"{"a":{"password":"\#(weak)"},"list":[{"k":"\#(ghToken)"}]}"#.utf8)
        let hex = SHA256Hex.of(blob)
        for first in [false, true] {
            let f = try H.run(
                [
                    H.network(seq: 1, responseBody: H.blobBody(blob)),
                    H.network(seq: 2, requestBody: H.blobBody(blob), responseBody: H.blobBody(blob))
                ],
                blobs: [blob], blobsFirst: first)
            #expect(
                pairs(f) == [
                    "redaction.body-field @ blob sha256:\(hex) $.a.password", "secret.github-token @ blob sha256:\(hex) $.list[0].k",
                    "redaction.body-field @ blob sha256:\(hex) $.a.password", "secret.github-token @ blob sha256:\(hex) $.list[0].k"
                ])
            #expect(f.map(\.seq) == [1, 1, 2, 2])
        }
    }

    @Test func unreferencedBlobIsReportedOnItsOwn() throws {
        let blob = Array(("log dump " + ghToken + "\n").utf8)
        let f = try H.run([], blobs: [blob])
        #expect(f.count == 1)
        #expect(f.first?.rule == "secret.github-token" && f.first?.seq == nil && f.first?.file?.hasPrefix("blobs/") == true)
    }

    @Test func truncatedBodyIsStillScanned() throws {
        let cut = Array(#"{"data":{"items":[1,2,3],"user":{"name":"bob","refresh_token":"\#(weak)abc","bio":"\#(ghToken)"#.utf8)
        let f = try H.run([H.network(responseBody: H.blobBody(cut, truncated: true))], blobs: [cut])
        let hex = SHA256Hex.of(cut)
        #expect(
            pairs(f) == [
                "redaction.body-field @ blob sha256:\(hex) $.data.user.refresh_token",
                "secret.github-token @ blob sha256:\(hex) $.data.user.bio"
            ])
        let inline = #"{"session":{"accessToken":"\#(weak)", "more": ["x", {"ok": tr"#
        let g = try H.run([H.network(responseBody: H.textBody(inline))])
        #expect(pairs(g) == ["redaction.body-field @ response.body $.session.accessToken"])
    }

    @Test func urlValuedHeaders() throws {
        let f = try H.run([
            H.network(responseHeaders: [
                ("Location", "myapp://cb?code=" + weak + "&state=1"),
                ("Link", "<https://api.example.test/p?page=2&token=" + weak + ">; rel=\"next\""),
                ("Referer", "https://u:" + weak + "@example.test/"),
                ("Content-Location", "https://example.test/x?code=***")
            ])
        ])
        #expect(
            pairs(f) == [
                "redaction.url-in-header @ response.headers[Link] ?token",
                "redaction.url-in-header @ response.headers[Location] ?code",
                "redaction.url-userinfo @ response.headers[Referer]"
            ])
    }

    @Test func urlUserinfoAnywhere() throws {
        let f = try H.run([
            H.network(url: "https://bob:" + weak + "@api.example.test/v1"),
            H.log(seq: 2, message: "connecting to postgres://app:" + weak + "@db:5432/x")
        ])
        #expect(pairs(f) == ["redaction.url-userinfo @ request.url", "redaction.url-userinfo @ log.message"])
    }

    @Test func logMessageErrorDescriptionAndEventAttributes() throws {
        let f = try H.run([
            H.log(seq: 2, message: "using token " + ghToken, error: "401 for key " + "AKIA" + Fake.s(16, Fake.upperDigit, seed: 8)),
            H.network(seq: 3, error: "failed with Bearer " + jwt),
            H.event(
                seq: 4,
                attributes: .object([
                    "trigger": .string("error"), "x": .object(["y": .string(ghToken)]),
                    "password": .string(weak)
                ]))
        ])
        #expect(
            pairs(f) == [
                "secret.aws-access-key @ error.description", "secret.github-token @ log.message",
                "secret.jwt @ error.description",
                "redaction.metadata-field @ event.attributes $.password", "secret.github-token @ event.attributes $.x.y"
            ])
    }

    @Test func logMetadataAtAnyDepth() throws {
        let f = try H.run([
            H.log(
                metadata: .object([
                    "sku": .string("A1"),
                    "auth": .object(["Access-Token": .string(weak), "list": .array([.object(["otp": .int(123456)])])]),
                    "token": .string("***"), "ok": .null
                ]))
        ])
        #expect(
            pairs(f) == [
                "redaction.metadata-field @ log.metadata $.auth.Access-Token", "redaction.metadata-field @ log.metadata $.auth.list[0].otp"
            ])
    }

    @Test func customHeadersAndOtherFields() throws {
        let f = try H.run([
            H.network(
                requestHeaders: [("X-Custom-Token", Fake.s(32, Fake.alnum, seed: 5)), ("X-Trace", ghToken)],
                extra: ["label": .string("call " + "xoxb-" + Fake.s(12, Fake.digits, seed: 1) + "-" + Fake.s(24, Fake.alnum, seed: 2))])
        ])
        #expect(
            Set(pairs(f)) == [
                "secret.slack-token @ label", "secret.generic-secret @ request.headers[X-Custom-Token]",
                "secret.github-token @ request.headers[X-Trace]"
            ])
    }

    @Test func frameBodies() throws {
        let frame = JSONOut.object([
            "type": .string("frame"), "seq": .int(5), "ts": .string("2026-11-29T10:15:05.017Z"), "direction": .string("out"),
            "topic": .string("realtime:orders"), "event": .string("phx_join"),
            "body": .object(["access_token": .string(jwt), "user": .string("usr_123")])
        ]).render(pretty: false)
        let f = try H.run([frame])
        #expect(pairs(f) == ["redaction.body-field @ frame.body $.access_token"])
        #expect(f.first?.severity == .critical)
    }

    @Test func extraFieldsFromConfig() throws {
        var c = VerifyConfig(extraHeaders: ["X-Session"], extraQuery: ["session_id"], extraBody: ["sessionKey"])
        c.addExtraField("pin")
        let f = try H.run(
            [
                H.network(
                    url: "https://x.test/?sessionId=abc&pin=1234", requestHeaders: [("x-session", "abc")],
                    requestBody: H.textBody(#"{"session_key":"abc","PIN":"1234"}"#))
            ], config: c)
        #expect(
            pairs(f) == [
                "redaction.body-field @ request.body $.PIN", "redaction.body-field @ request.body $.session_key",
                "redaction.header @ request.headers[x-session]", "redaction.query @ request.url ?pin",
                "redaction.query @ request.url ?sessionId"
            ])
    }

    @Test func allowlistAndDisabledDetectors() throws {
        let line = H.network(requestHeaders: [("X-Trace", ghToken), ("Authorization", weak)])
        let all = try H.run([line])
        #expect(all.count == 2)
        let fp = SecretMask.fingerprint(ghToken)
        #expect(try H.run([line], config: VerifyConfig(allowFingerprints: [fp])).map(\.rule) == ["redaction.header"])
        #expect(try H.run([line], config: VerifyConfig(disabledDetectors: ["github-token"])).map(\.rule) == ["redaction.header"])
        #expect(try H.run([line], config: VerifyConfig(disabledDetectors: ["redaction.header"])).map(\.rule) == ["secret.github-token"])
    }

    @Test func sameValueSameLocationIsReportedOnce() throws {
        let body = #"{"a":"\#(ghToken) and again \#(ghToken)"}"#
        let f = try H.run([H.network(requestBody: H.textBody(body))])
        #expect(pairs(f) == ["secret.github-token @ request.body $.a"])
    }

    @Test func findingsNeverHoldTheValue() throws {
        let f = try H.run([
            H.network(requestHeaders: [("Authorization", "Bearer " + jwt)], requestBody: H.textBody(#"{"password":"\#(weak)"}"#))
        ])
        for x in f {
            let all = [x.message, x.location ?? "", x.preview ?? "", x.fingerprint ?? ""].joined(separator: " ")
            #expect(!all.contains(jwt) && !all.contains(weak))
        }
    }
}
