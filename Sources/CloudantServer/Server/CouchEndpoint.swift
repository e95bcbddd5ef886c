internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import HTTPTypes
internal import Hummingbird
internal import NIOCore

/// Everything a request needs: the configuration, the databases, the authenticator and the server's
/// identity. Route handlers are facets of this type (`CouchEndpoint+Documents.swift`, …).
final class CouchEndpoint: Sendable {
    let configuration: ServerConfiguration
    let registry: DatabaseRegistry
    let authenticator: Authenticator
    let identity: ServerIdentity

    init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        let registry = DatabaseRegistry(directory: configuration.directory)
        self.registry = registry
        identity = try ServerIdentity.load(folder: configuration.directory.path, uuid: configuration.uuid)
        // `_users` exists from the start, as after CouchDB's single-node setup.
        let users = try registry.openSystem(UsersDatabase.name)
        authenticator = try Authenticator(
            admin: configuration.admin, iterations: configuration.passwordIterations, secret: identity.secret,
            sessionTimeout: configuration.sessionTimeout,
            lookUpUser: { name in try? await users.document(id: UsersDatabase.idPrefix + name) })
    }

    /// Answers one HTTP request; every failure becomes a CouchDB error body here and nowhere else.
    func respond(to request: Request) async -> Response {
        do {
            return try await route(try await prepare(request))
        } catch let failure as HTTPFailure {
            return CouchResponse.failure(failure)
        } catch let error as CloudantError {
            return CouchResponse.failure(HTTPFailure(body: CouchErrorBody(error)))
        } catch is NIOTooManyBytesError {
            return CouchResponse.failure(.tooLarge)
        } catch {
            return CouchResponse.failure(
                HTTPFailure(status: 500, error: "unknown_error", reason: "The server could not answer the request."))
        }
    }

    /// Reads the target, the body (up to the size limit) and the credentials.
    private func prepare(_ request: Request) async throws -> CouchRequest {
        let (segments, query) = CouchRequest.parseTarget(request.head.path ?? "/")
        let limit = configuration.maxRequestBodySize
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw HTTPFailure.tooLarge }
        var body: [UInt8] = []
        if request.method != .get, request.method != .head {
            var mutable = request
            let buffer = try await mutable.collectBody(upTo: limit)
            body = Array(buffer.readableBytesView)
        }
        let user = try await authenticate(request.headers)
        return CouchRequest(
            method: request.method, segments: segments, query: query, headers: request.headers, body: body, user: user,
            authority: request.head.authority)
    }

    /// Basic auth first, then the `AuthSession` cookie; anonymous otherwise.
    /// - Throws: ``HTTPFailure`` `401 unauthorized` for wrong basic-auth credentials.
    private func authenticate(_ headers: HTTPFields) async throws -> UserContext {
        if authenticator.isAdminParty { return UserContext(name: nil, roles: ["_admin"]) }
        if let authorization = headers[.authorization], authorization.lowercased().hasPrefix("basic ") {
            let encoded = authorization.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
            guard let decoded = Data(base64Encoded: encoded).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":"),
                let user = await authenticator.authenticate(
                    name: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]))
            else {
                throw HTTPFailure.unauthorized("Name or password is incorrect.")
            }
            return user
        }
        if let cookie = Self.cookie(named: "AuthSession", in: headers), let user = await authenticator.user(fromCookie: cookie) {
            return user
        }
        return .anonymous
    }

    private static func cookie(named name: String, in headers: HTTPFields) -> String? {
        for header in headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == name { return String(pair[1]) }
            }
        }
        return nil
    }
}

extension HTTPFailure {
    init(body: CouchErrorBody) {
        self.init(status: body.status, error: body.error, reason: body.reason)
    }
}
