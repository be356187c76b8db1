import Testing

@testable import SiftCore
@testable import SiftVerify

/// What is plainly not a credential stays below the CI gate wherever it stands (a log message and a
/// text body), and what only looks like JSON is still read whole. Tables, one row a habit.
@Suite struct PlainlyNotACredentialTests {
    /// Text that must raise nothing at high or above.
    static let notCredentials: [String] = [
        // Masks, references and placeholders in a URL's userinfo.
        "connecting to postgres://user:password@localhost:5432/app",
        "url: https://admin:{password}@db.internal/app",
        "mongodb://root:******@mongo:27017",
        "redis://:${REDIS_PASSWORD}@cache:6379",
        "amqp://app:%RABBIT_PASSWORD%@queue:5672",
        "mysql://app:<password>@127.0.0.1/app",
        "postgres://app:$DB_PASSWORD@db/app",
        // A Windows variable: `%DB` is no escape of a byte here.
        "set PASSWORD=%DB_PASSWORD%",
        "password: %DB_PASSWORD%",
        // Code that fetches a password or key instead of holding one.
        "password = getpass()",
        "password = getpass.getpass(\"Password: \")",
        "password = input(\"Password: \")",
        "password = request.form['password']",
        "password = params[:password]",
        "let password = readLine()",
        "apiKey := os.Getenv(\"API_KEY\")",
        "let apiKey = ProcessInfo.processInfo.environment[\"API_KEY\"]",
        "password = hashlib.sha256(raw).hexdigest()",
        // A type in code, not a value.
        "let password: String",
        "password: Optional[str] = None",
        // What a credential is made with, named for it.
        "private static final String SECRET_KEY_ALGORITHM = \"HmacSHA256\";",
        // A YAML tag that fetches the value.
        "password: !secret db_password",
        "MasterUserPassword: !Ref DBPassword",
        // Where a secret is kept, not the secret.
        "\"secretsManagerArn\": \"arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf\"",
        // Keys that address data: a digest, a UUID, a path, or a key named for what it orders.
        "cache_key: 9f86d081884c7d659a2feaa0c55ad015b3a4f5c6",
        "idempotency_key: 6f1d4e3b-9a57-4c2d-8e4f-5a6b8b0e4c2a",
        "object_key: uploads/2026/11/IMG_0042.jpg",
        "\"sortKey\": \"2026-11-29T10:15:04Z#order\"",
        "minisat-master-keying:x64-uwp=fail",
        // A token that ties log lines together; a Mapbox public token under its provider's name.
        "trace_token: " + Fake.uuid(seed: 77),
        "mapbox_token: pk.eyJ1IjoiYWNtZSIsImEiOiJjbHgwYWJjZGVmZ2hpamtsbW5vcHFyc3QifQ." + Fake.s(22, Fake.alnum, seed: 78),
        // Keys public by design: a captcha's site key, a search-only key.
        "recaptcha_site_key: 6L" + Fake.s(38, Fake.alnum, seed: 79), "algolia_search_key: " + Fake.s(32, Fake.hexLower, seed: 80),
        // A resource's name with its number, under a name that speaks of secrets.
        "  vaultForSecrets: app3-stg-4417392810", "secret_bucket = prod-db-eu-20240611",
        // A MySQL client asked to prompt for the password, or given it from the environment.
        "mysql -u root -p shop", "mysqldump -u app -p -h db.internal shop > dump.sql", "mysql -u root -p$MYSQL_PWD shop",
        "mysql -u root -P 3307 -h db shop",
        // Prose about machines and logins, not a `.netrc` entry.
        "the machine login password was reset", "machine learning login flow: password reset link sent",
        // A member's value that is a credential's word, then the next member's name: no pair.
        "{\"type\": \"Token\", \"stringData\": 1}", "{\"kind\": \"Secret\", \"stringData\": {\"token\": \"***\"}}"
    ]

    @Test(arguments: notCredentials)
    func staysBelowTheGate(_ text: String) throws {
        for line in [Harness.log(message: text), Harness.network(responseBody: Harness.textBody(text, "text/plain"))] {
            let high = try Harness.run([line]).filter { $0.severity >= .high }
            #expect(high.isEmpty, "\(text): \(high.map(\.rule))")
        }
    }

    @Test func aPlaceholderPasswordToALocalHostIsLowAndSaysWhy() throws {
        let f = try Harness.run([Harness.log(message: "postgres://user:password@localhost:5432/app")])
        let userinfo = f.filter { $0.ruleID == VerifyRule.urlUserinfo.id }
        #expect(userinfo.count == 1)
        #expect(userinfo.first?.severity == .low)
        #expect(userinfo.first?.message.contains("to a local host") == true)
        // The same word to a host of the world is a password.
        let world = try Harness.run([Harness.log(message: "https://username:password@shop.acme.io/")])
        #expect(world.contains { $0.ruleID == VerifyRule.urlUserinfo.id && $0.severity == .high })
    }

    /// A token under a token's name that is a time-based UUID (version 1) is shown medium with why; a
    /// random one (version 4) is a token.
    @Test func aTimeBasedUUIDUnderATokensNameIsMediumAndSaysWhy() throws {
        var v1 = Array(Fake.uuid(seed: 411))
        v1[14] = "1"
        let f = try Harness.run([Harness.log(message: "_authToken=" + String(v1))]).filter { $0.rule == "secret.generic-secret" }
        #expect(f.first?.severity == .medium)
        #expect(f.first?.message.contains("time-based UUID") == true)
        var v4 = Array(Fake.uuid(seed: 412))
        v4[14] = "4"
        let g = try Harness.run([Harness.log(message: "_authToken=" + String(v4))]).filter { $0.rule == "secret.generic-secret" }
        #expect(g.first?.severity == .high)
        // An `.npmrc` auth line holds the registry's token whatever its form; a key npm would not
        // read as a registry's does not.
        for (line, gate) in [
            ("//registry.npmjs.org/:_authToken=", true), ("//npm.pkg.github.com/acme/:_authToken=", true),
            ("///:_authToken=", false), ("//registry.npmjs.org:_authToken=", false)
        ] {
            let h = try Harness.run([Harness.log(message: line + String(v1))]).filter { $0.rule == "secret.generic-secret" }
            #expect(h.contains { $0.severity >= .high } == gate, "\(line)")
        }
    }

    /// A JWT whose header is damaged in a byte or two is still one when its payload is a whole JSON
    /// object; a header of junk after `eyJ` is not.
    @Test func aJWTWithADamagedHeaderIsFoundAndJunkIsNot() throws {
        func url(_ s: String) -> String {
            Base64.encode(Array(s.utf8)).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        var header = try #require(Base64.decode(Fake.jwtHeader(seed: 413)))
        header[8] = 0x9E
        let damaged = Base64.encode(header).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let payload = url("{\"sub\":\"" + Fake.s(10, Fake.digits, seed: 414) + "\",\"name\":\"Jo\"}")
        let sig = Fake.s(43, Fake.b64url, seed: 415)
        let found = try Harness.run([Harness.log(message: damaged + "." + payload + "." + sig)])
        #expect(found.contains { $0.rule == "secret.jwt" && $0.severity == .high })
        let junk = "eyJ" + Fake.s(60, Fake.b64url, seed: 416)
        let none = try Harness.run([Harness.log(message: junk + "." + payload + "." + sig)])
        #expect(!none.contains { $0.rule == "secret.jwt" })
    }

    /// A GitHub token whose checksum holds is critical; the shape without the proof is high, and says why.
    @Test func aGitHubTokenWhoseChecksumFailsIsHighAndSaysWhy() throws {
        let real = try Harness.run([Harness.log(message: "token " + Fake.githubToken(seed: 422))])
        #expect(real.first { $0.rule == "secret.github-token" }?.severity == .critical)
        let shape = try Harness.run([Harness.log(message: "token gh" + "p_" + Fake.s(36, Fake.alnum, seed: 423))])
        let f = shape.first { $0.rule == "secret.github-token" }
        #expect(f?.severity == .high)
        #expect(f?.message.contains("checksum does not hold") == true)
    }

    /// Base64 of `user:password` is a Basic credential with no name beside it; base64 of a URI, a
    /// header line or a clock is not. Under an auth name, a pair whose encoding was altered in a byte
    /// or two still counts.
    @Test func aBase64UserAndPasswordIsFoundBareAndLookalikesAreNot() throws {
        let pair = Base64.encode(Array(("api" + ":" + "key-" + Fake.s(28, Fake.alnum, seed: 431)).utf8))
        let f = try Harness.run([Harness.log(message: pair)]).filter { $0.rule == "secret.encoded-user-password" }
        #expect(f.first?.severity == .high)
        #expect(f.first?.location?.contains("base64-decoded") == true)
        for text in [
            "urn:uuid:" + Fake.uuid(seed: 432), "Content-Type:application/json;v=2", "2026-11-29T12:55:01.123Z",
            "https://" + "shop.acme.io/v1/orders?page=2", "user:password1",
            "User:" + Fake.uuid(seed: 435), "Order:" + Fake.s(12, Fake.digits, seed: 436)
        ] {
            let g = try Harness.run([Harness.log(message: Base64.encode(Array(text.utf8)))]).filter { $0.severity >= .high }
            #expect(g.isEmpty, "\(text): \(g.map(\.rule))")
        }
        var damaged = Array(("johndoe" + ":" + Fake.uuid(seed: 433)).utf8)
        damaged[30] = 0xF9
        let named = "{\"user_auth\": \"" + Base64.encode(damaged) + "\"}"
        let h = try Harness.run([Harness.log(message: named)])
        #expect(h.contains { $0.rule == "secret.encoded-user-password" && $0.severity == .high })
    }

    /// A PuTTY key file's match runs through its private lines (and its MAC when there is one), in
    /// text and in a JSON string's escapes, so `scrub` replaces the key and not only its header.
    @Test func aPuTTYKeyIsMatchedThroughItsPrivateLines() {
        let secretLine = Fake.s(44, Fake.b64, seed: 461)
        for nl in ["\n", "\r\n", "\\n"] {
            let head = "PuTTY-User-Key-File-" + "2: ssh-rsa" + nl + "Encryption: none" + nl + "Comment: x" + nl + "Public-Lines: 1" + nl
            let key = head + Fake.s(64, Fake.b64, seed: 462) + nl + "Private-Lines: 2" + nl + secretLine + nl + secretLine.uppercased()
            for tail in ["", nl + "Private-MAC: " + Fake.s(40, Fake.hexLower, seed: 463)] {
                let found = detect("key file:" + nl + key + tail + nl + "done").filter { $0.id == "putty-private-key" }
                #expect(found.first?.value == key + tail, "\(nl.debugDescription) \(tail.isEmpty)")
            }
        }
    }

    /// A PyPI token whose macaroon ends before its signature is cut short: medium, and says so; the
    /// whole token is high.
    @Test func aPyPITokenCutBeforeItsSignatureIsMedium() throws {
        func macaroon(signed: Bool) -> String {
            var m: [UInt8] = [2, 1, 8] + Array("pypi.org".utf8) + [2, 36] + Array(Fake.uuid(seed: 434).utf8) + [0]
            m += [2, 23] + Array("[1,[\"minimal-project\"]]".utf8).prefix(23) + [0, 0]
            if signed { m += [6, 32] + (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } }
            return "pypi-"
                + Base64.encode(m).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let whole = try Harness.run([Harness.log(message: "token " + macaroon(signed: true))])
        #expect(whole.first { $0.rule == "secret.pypi-token" }?.severity == .high)
        let cut = try Harness.run([Harness.log(message: "token " + String(macaroon(signed: false).prefix(89)))])
        let f = cut.first { $0.rule == "secret.pypi-token" }
        #expect(f?.severity == .medium)
        #expect(f?.message.contains("cut short") == true)
    }

    @Test func aFirebaseWebConfigKeyIsInfoAndSaysWhy() throws {
        let key = "AIza" + Fake.s(35, Fake.b64url, seed: 401)
        let config = "const firebaseConfig = { apiKey: \"\(key)\", authDomain: \"acme.firebaseapp.com\" }"
        let f = try Harness.run([Harness.log(message: config)]).filter { $0.rule == "secret.google-api-key" }
        #expect(f.count == 1)
        #expect(f.first?.severity == .info)
        #expect(f.first?.message.contains("Firebase web config") == true)
        let alone = try Harness.run([Harness.log(message: "maps key " + key)]).filter { $0.rule == "secret.google-api-key" }
        #expect(alone.first?.severity == .medium)
    }

    /// A password is what people type: a run in it (`12345`) does not make it a placeholder, and one
    /// that holds a documentation word is shown low with the reason, never passed over.
    @Test func aPasswordWithARunIsAPasswordAndAPlaceholderIsLowWithItsReason() throws {
        let typed = "Winter" + "12345" + "!"
        let high = try Harness.run([Harness.log(message: "password = \"\(typed)\"")])
        #expect(high.contains { $0.rule == "secret.password-assignment" && $0.severity == .high })
        let sample = "Tr0ub4dor" + "_example"
        let low = try Harness.run([Harness.log(message: "db_password: \(sample)")]).filter { $0.rule == "secret.password-assignment" }
        #expect(low.count == 1)
        #expect(low.first?.severity == .low)
        #expect(low.first?.message.contains("looks like a placeholder (holds \"example\")") == true)
        // A password's preview shows nothing of it, and its fingerprint is not a plain hash.
        #expect(low.first?.preview == SecretMask.hidden)
        #expect(low.first?.fingerprint?.hasPrefix("sha256:") == false)
        // A mask is no value at all.
        #expect(try Harness.run([Harness.log(message: "password = \"xxxxxxxx\"")]).isEmpty)
    }

    /// A key-shaped value that is a run (`1234567890abcdef…`) under a key's name is shown low as a
    /// placeholder, not dropped.
    @Test func aRunUnderAKeysNameIsLowNotDropped() throws {
        let run = String(repeating: "1234567890abcdef", count: 3)
        let f = try Harness.run([Harness.log(message: "secret_access_key=\(run)")]).filter { $0.rule == "secret.generic-secret" }
        #expect(f.count == 1)
        #expect(f.first?.severity == .low)
    }

    /// Text that starts like JSON but is not: what stands outside its strings is read too.
    static let startsLikeJSON: [String] = [
        "[cohere]\napi_key = \"@\"",
        "[cohere] api_key = \"@\"",
        "{\"a\": 1, x api_key = \"@\"",
        "[acme]\nsigning_key: @"
    ]

    @Test(arguments: startsLikeJSON)
    func textThatOnlyStartsLikeJSONIsReadWhole(_ shape: String) throws {
        let text = shape.replacingOccurrences(of: "@", with: Fake.s(40, Fake.alnum, seed: 402))
        for line in [Harness.log(message: text), Harness.network(responseBody: Harness.textBody(text, "text/plain"))] {
            let f = try Harness.run([line])
            #expect(f.contains { $0.rule == "secret.generic-secret" && $0.severity == .high }, "\(shape): \(f.map(\.rule))")
        }
    }

    @Test func percentTextDecodingLeavesNonTextEscapes() {
        func decoded(_ s: String) -> String {
            let b = Array(s.utf8)
            return String(decoding: b.withUnsafeBufferPointer { Percent.decodeText($0) }, as: UTF8.self)
        }
        #expect(decoded("%DB_PASSWORD%") == "%DB_PASSWORD%")
        #expect(decoded("gh%70_x") == "ghp_x")
        #expect(decoded("caf%C3%A9") == "café")
        #expect(decoded("%C3%28") == "%C3(")
        #expect(decoded("%FF%41") == "%FFA")
    }
}

/// A value under a name made of a provider's name: a JSON member, a header, a query parameter.
@Suite struct ProviderNamedFieldTests {
    static let key = Fake.s(20, Fake.alnum, seed: 410) + Fake.s(12, Fake.alnum, seed: 411)

    static func severity(_ line: String) throws -> Severity? {
        try Harness.run([line]).filter { $0.rule == "secret.provider-keyed-secret" }.map(\.severity).max()
    }

    @Test func aFieldNamedForAProvidersKeyIsHigh() throws {
        let member = Harness.network(responseBody: Harness.textBody("{\"cohere_api_key\": \"\(Self.key)\"}"))
        #expect(try Self.severity(member) == .high)
        let header = Harness.network(requestHeaders: [("X-Cohere-Key", Self.key)])
        #expect(try Self.severity(header) == .high)
        let query = Harness.network(url: "https://api.example.test/v1/x?pinecone_token=\(Self.key)")
        #expect(try Self.severity(query) == .high)
        let metadata = Harness.log(metadata: .object(["MISTRAL_API_KEY": .string(Self.key)]))
        #expect(try Self.severity(metadata) == .high)
    }

    /// Names from the whole provider list count, the API-data providers' among them.
    @Test func aLessKnownProvidersNameLabelsItsKey() throws {
        let hex = Fake.s(32, Fake.hexLower, seed: 413)
        #expect(try Self.severity(Harness.network(responseBody: Harness.textBody("{\"weatherbitKey\": \"\(hex)\"}"))) == .high)
        #expect(try Self.severity(Harness.log(message: "export WEATHERBIT_KEY=\(hex)")) == .high)
        #expect(try Self.severity(Harness.log(message: "ipgeolocation_access_token: \(Self.key)")) == .high)
        #expect(try Self.severity(Harness.network(responseBody: Harness.textBody("{\"mockarooAppSecret\": \"\(hex)\"}"))) == .high)
        #expect(try Self.severity(Harness.log(message: "PARSEHUB_WEBHOOK_SECRET=\(Self.key)")) == .high)
    }

    /// A name ending in `key` that says no more is a key's name when its value is plainly random.
    @Test func aRandomValueUnderAnyKeysNameIsHigh() throws {
        let random = Fake.s(32, Fake.alnum, seed: 417)
        func severity(_ line: String) throws -> Severity? {
            try Harness.run([line]).filter { $0.rule.hasPrefix("secret.") }.map(\.severity).max()
        }
        #expect(try severity(Harness.log(message: "zorblax_key: \(random)")) == .high)
        #expect(try severity(Harness.log(message: "ZORBLAX_KEY=\(random)")) == .high)
        #expect(try severity(Harness.network(responseBody: Harness.textBody("{\"zorblaxKey\": \"\(random)\"}"))) == .high)
        #expect(try severity(Harness.log(message: "cache_key: \(random)")) == nil)
        #expect(try severity(Harness.log(message: "monkey: \(random)")) == nil)
        #expect(try severity(Harness.network(requestHeaders: [("Sec-WebSocket-Key", Fake.s(22, Fake.b64, seed: 421) + "==")])) == nil)
        // `key` alone, a provider's own scheme, and a key told in words with no `=` between.
        #expect(try severity(Harness.log(message: "GET https://api.zorblax.example/v1/items?key=\(random)")) == .high)
        #expect(try severity(Harness.log(message: "{\"zorblax\": {\"key\": \"\(random)\"}}")) == .high)
        #expect(try severity(Harness.log(message: "Authorization: Zorblax \(random)")) == .high)
        #expect(try severity(Harness.log(message: "the zorblax token is \(random)")) == .high)
        #expect(try severity(Harness.log(message: "using api key \(random) for zorblax")) == .high)
        for plain in [
            "token is invalid", "refreshing token RefreshTokenRequestHandler2024", "\"key\": \"theme\", \"value\": \"dark\"",
            "Authorization: Zorblax pending", "{\"cacheKey\": \"v3:Home:\(random)\"}",
            "Sec-WebSocket-Key: " + Fake.s(22, Fake.b64, seed: 420) + "==",
            // An app's own random ids under `key`: a Firebase push id, a nanoid.
            "{\"key\": \"-N" + Fake.s(18, Fake.b64url, seed: 418) + "\"}", "{\"key\": \"" + Fake.s(21, Fake.b64url, seed: 419) + "\"}"
        ] {
            #expect(try severity(Harness.log(message: plain)) == nil, "\(plain)")
        }
    }

    @Test func aProvidersKeyToldInWordsIsHigh() throws {
        #expect(try Self.severity(Harness.log(message: "Your Cohere API key: \(Self.key). Keep it safe")) == .high)
        #expect(try Self.severity(Harness.log(message: "the pinecone token is \(Self.key)")) == .high)
        #expect(try Self.severity(Harness.log(message: "cohere key rotation scheduled for tomorrow")) == nil)
        // A pair after a sentence's colon is a pair still.
        #expect(try Self.severity(Harness.log(message: "integration sync finished: \"cohere\", \"\(Self.key)\"")) == .high)
        // A few words between the name and the key word, and the possessive.
        #expect(try Self.severity(Harness.log(message: "sending request to the mailgun API with key \(Self.key)")) == .high)
        #expect(try Self.severity(Harness.log(message: "Cohere's private API key is \(Self.key)")) == .high)
        #expect(try Self.severity(Harness.log(message: "the cohere token was rotated yesterday and the new one works")) == nil)
        #expect(try Self.severity(Harness.log(message: "mailgun request failed for key rotation_schedule_2024")) == nil)
    }

    /// A bare `Key=` or `key =` after lines that name a provider or an API: a token's shape counts,
    /// not only a plainly random value (a digest-like key in lower case).
    @Test func aKeyAfterLinesNamingAProviderIsHigh() throws {
        func gate(_ line: String) throws -> Bool { try Harness.run([line]).contains { $0.severity >= .high } }
        let hex = Fake.s(32, Fake.hexLower, seed: 414)
        let lines = "[INFO] Sending request to the mailgun API\n[DEBUG] Using Key=\(hex)\n[INFO] Response received: 200 OK"
        #expect(try gate(Harness.log(message: lines)) == true)
        #expect(try gate(Harness.log(message: "// mailgun\nconst key = \"\(hex)\";")) == true)
        // The word `API` alone: a random key counts, a digest, a path or a namespaced key does not.
        let alnum = Fake.s(24, Fake.lower + Fake.digits, seed: 415)
        #expect(try gate(Harness.log(message: "[INFO] Calling the geocoding API\n[DEBUG] key: \(alnum)")) == true)
        #expect(try gate(Harness.log(message: "[INFO] S3 API\n[DEBUG] ETag Key=\(hex)")) == false)
        #expect(try gate(Harness.log(message: "[DEBUG] S3 API call PutObject\n[DEBUG] Key=uploads/2026/11/29/IMG_0042.jpg")) == false)
        #expect(try gate(Harness.log(message: "[INFO] Redis API\n[DEBUG] key: session:3f2a9c1e7b")) == false)
        // A data store's key is a record's.
        #expect(try gate(Harness.log(message: "[DEBUG] redis SET\n[DEBUG] key=sess-\(alnum)")) == false)
        // In a JSON body, the lines are joined by `\n` escapes; the name starts a line there.
        let body = Harness.network(responseBody: Harness.textBody("{\"log\": \"start\\nmailgun\\nKey=\(hex)\"}"))
        #expect(try Harness.run([body]).contains { $0.severity >= .high })
        // Raw text holding the escapes (a body read as written): the `n` of `\n` is no part of the name.
        #expect(detect("start\\nmailgun\\nKey=\(hex)").contains { $0.severity >= .high })
        // A YAML sibling of the provider's empty block reads the same way: the line before names it.
        #expect(try gate(Harness.log(message: "cohere:\nkey: \(hex)")) == true)
        // No provider and no API named: a bare key of a digest's shape is a cache's or a row's.
        #expect(try gate(Harness.log(message: "[INFO] warming the cache\n[DEBUG] Key=\(hex)")) == false)
        // A provider named, but words for a value: no digit, no key.
        #expect(try gate(Harness.log(message: "[INFO] mailgun\n[DEBUG] key: MyVaultEntryName")) == false)
        // Named more than three lines before: too far.
        #expect(try gate(Harness.log(message: "mailgun\na\nb\nc\nd\nKey=\(hex)")) == false)
        // An API by a name of its own, even one pbsift does not know: a digest's shape counts there;
        // after a word that says what kind of API it is, it does not.
        let named = "[INFO] Sending request to the Quillfeather API\n[DEBUG] Using Key=\(hex)\n[INFO] Response received: 200 OK"
        #expect(try gate(Harness.log(message: named)) == true)
        #expect(
            try gate(Harness.log(message: "[INFO] Sending request to the Quillfeather API\n[DEBUG] Key=" + Fake.uuid(seed: 437))) == true)
        #expect(try gate(Harness.log(message: "[INFO] Calling the REST API\n[DEBUG] Key=\(hex)")) == false)
        #expect(try gate(Harness.log(message: "[INFO] Our Internal API\n[DEBUG] Key=\(hex)")) == false)
    }

    /// A provider's name, a space, then a plainly random key: that provider's key. Ids after a name
    /// (hex, UUIDs, prefixed object ids, shorter handles) are not.
    @Test func aProvidersNameThenARandomKeyIsHigh() throws {
        func gate(_ line: String) throws -> Bool { try Harness.run([Harness.log(message: line)]).contains { $0.severity >= .high } }
        #expect(try gate("mailgun " + Self.key) == true)
        #expect(try gate("cohere  " + Fake.s(40, Fake.alnum, seed: 438) + " end") == true)
        for plain in [
            "sentry " + Fake.s(32, Fake.hexLower, seed: 439), "github " + Fake.s(40, Fake.hexLower, seed: 440),
            "OneSignal " + Fake.uuid(seed: 441), "stripe pi_3N" + Fake.s(30, Fake.alnum, seed: 442),
            "youtube UC" + Fake.s(22, Fake.b64url, seed: 443), "firebase " + Fake.s(28, Fake.alnum, seed: 444),
            "mailgun " + Self.key + "/avatar.png"
        ] {
            #expect(try gate(plain) == false, "\(plain)")
        }
    }

    @Test func aFieldNamedForTheProviderAloneIsMediumAndSaysWhy() throws {
        let id = "UC" + Fake.s(22, Fake.b64url, seed: 412)
        let f = try Harness.run([Harness.network(responseBody: Harness.textBody("{\"youtube\": \"\(id)\"}"))])
            .filter { $0.rule == "secret.provider-keyed-secret" }
        #expect(f.first?.severity == .medium)
        #expect(f.first?.message.contains("named for the provider alone") == true)
        // A key's length under it (32 characters and more) is a key.
        #expect(try Self.severity(Harness.network(responseBody: Harness.textBody("{\"cohere\": \"\(Self.key)\"}"))) == .high)
        // A word, a URL or a short handle under it is nothing.
        for v in ["enabled", "https://cohere.example.test/v1", "acme-prod"] {
            #expect(try Self.severity(Harness.network(responseBody: Harness.textBody("{\"cohere_key\": \"\(v)\"}"))) == nil)
        }
    }
}
