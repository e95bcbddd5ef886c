import CloudantCore
import HTTPTypes
import Testing

@testable import CloudantServer

@Suite("Basic authorization header")
struct BasicAuthorizationTests {
    private func read(_ value: String?) -> BasicAuthorization {
        var headers = HTTPFields()
        if let value { headers[.authorization] = value }
        return BasicAuthorization(headers)
    }

    private func credentials(_ value: String) -> (String, String)? {
        guard case .credentials(let name, let password) = read(value) else { return nil }
        return (name, password)
    }

    @Test("Name and password come from the base64 token; the password keeps its colons and any UTF-8")
    func credentialsAreSplitAtTheFirstColon() {
        let token = Base64.encode(Array("anna:se:cr:ét".utf8))
        #expect(credentials("Basic \(token)")! == ("anna", "se:cr:ét"))
        #expect(credentials("Basic \(Base64.encode(Array(":".utf8)))")! == ("", ""))
    }

    @Test("The scheme is read without case and blanks around the token are ignored")
    func schemeIgnoresCaseAndTokenIgnoresBlanks() {
        let token = Base64.encode(Array("admin:admin".utf8))
        for header in ["basic \(token)", "BASIC \(token)", "bAsIc \t\(token) \t"] {
            #expect(credentials(header)! == ("admin", "admin"), "\(header)")
        }
    }

    @Test("No header, another scheme, a bare scheme name or a token naming nobody is absent; a token that is not base64 is malformed")
    func absentAndMalformedHeaders() {
        // HTTP field values arrive without surrounding blanks, so `Basic ` is the bare scheme name. As CouchDB's
        // `basic_name_pw`: base64 of text without `:` (`admin`), or of `_:_`, names nobody.
        for header in [nil, "Bearer abc", "Basic", "Basic ", "Basicx YWRtaW46YWRtaW4=", "Basic YWRtaW4=", "Basic Xzpf"] {
            guard case .absent = read(header) else {
                Issue.record("\(header ?? "no header") should be absent")
                continue
            }
        }
        for header in ["Basic !!!!", "Basic YWRt aW46YWRtaW4=", "Basic YWRtaW46YWRtaW4"] {
            guard case .malformed = read(header) else {
                Issue.record("\(header) should be malformed")
                continue
            }
        }
    }
}
