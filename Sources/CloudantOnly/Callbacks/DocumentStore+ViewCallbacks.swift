public import CloudantCore
public import CloudantStore
public import Dispatch

/// The callback adapter of the view API, for code written against OTFCloudantStore's callbacks: each
/// completion is called exactly once, on `callbackQueue`.
extension DocumentStore {
    /// Queries a design document's view; see `queryView(designDocument:view:query:limits:)`.
    ///
    /// ```swift
    /// store.queryView(designDocument: "stats", view: "by_day", query: query, callbackQueue: .main) { result in
    ///     if case .success(let answer) = result { print(answer.rows.count) }
    /// }
    /// ```
    public func queryView(
        designDocument: String, view: String, query: ViewQuery = ViewQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<ViewResult, CloudantError>) -> Void
    ) {
        deliver(on: callbackQueue, to: completion) { try await self.queryView(designDocument: designDocument, view: view, query: query) }
    }

    /// Queries a Swift view; see `queryView(_:query:)`.
    public func queryView(
        _ view: SwiftView, query: ViewQuery = ViewQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<ViewResult, CloudantError>) -> Void
    ) {
        deliver(on: callbackQueue, to: completion) { try await self.queryView(view, query: query) }
    }
}
