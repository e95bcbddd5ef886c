internal import CloudantCore
internal import Foundation

/// The engine instances (``JavaScriptContext``) of one ``JavaScriptEngine``: made when a call needs one, up to
/// the configured maximum, each lent to one caller at a time, and thrown away once broken (a time-out).
///
/// A caller that finds every instance busy waits for one; no caller keeps an instance across a suspension
/// (design functions run synchronously), so a wait is bounded by the calls in flight.
final class ContextPool: @unchecked Sendable {
    private let configuration: JavaScriptEngine.Configuration
    /// Guards `idle`, `count`, `reloads` and `liveMapSets`.
    private let condition = NSCondition()
    private var idle: [JavaScriptContext] = []
    private var count = 0
    /// How many reloads there have been: an instance made before the last one is dropped when it comes back.
    private var reloads = 0
    /// The view indexes whose mappers are alive; an instance forgets the others' functions when lent.
    private var liveMapSets: Set<Int> = []
    private var nextMapSet = 1

    init(configuration: JavaScriptEngine.Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` with an instance, `preferring` the one that ran a view index's functions last (it has
    /// them compiled).
    func withContext<T>(preferring preferred: ObjectIdentifier? = nil, _ body: (JavaScriptContext) throws -> T) throws -> T {
        let context = try checkOut(preferring: preferred)
        defer { checkIn(context) }
        return try body(context)
    }

    /// Drops the instances at rest; those lent now are dropped when they come back (they were made before this
    /// reload), so every later call gets a new instance.
    func reload() {
        condition.lock()
        count -= idle.count
        idle.removeAll()
        reloads += 1
        condition.signal()
        condition.unlock()
    }

    /// How many instances exist, at rest or lent (for tests).
    var instanceCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// A number for a new view index's map functions.
    func registerMapSet() -> Int {
        condition.lock()
        defer { condition.unlock() }
        let id = nextMapSet
        nextMapSet += 1
        liveMapSets.insert(id)
        return id
    }

    /// A view index's mapper is gone: instances may forget its functions.
    func unregisterMapSet(_ id: Int) {
        condition.lock()
        liveMapSets.remove(id)
        condition.unlock()
    }

    private func checkOut(preferring preferred: ObjectIdentifier?) throws -> JavaScriptContext {
        condition.lock()
        while idle.isEmpty && count >= configuration.maximumInstances { condition.wait() }
        if !idle.isEmpty {
            let index = preferred.flatMap { wanted in idle.firstIndex { ObjectIdentifier($0) == wanted } } ?? idle.count - 1
            let context = idle.remove(at: index)
            let live = liveMapSets
            condition.unlock()
            for stale in context.mapSets.subtracting(live) { context.dropMapSet(stale) }
            return context
        }
        count += 1
        let generation = reloads
        condition.unlock()
        do {
            let context = try JavaScriptContext(
                timeLimit: configuration.timeLimit, reduceLimit: configuration.reduceLimit, log: configuration.log)
            context.reloadGeneration = generation
            return context
        } catch {
            condition.lock()
            count -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ context: JavaScriptContext) {
        condition.lock()
        if context.reloadGeneration != reloads || context.isBroken {
            count -= 1
        } else {
            idle.append(context)
        }
        condition.signal()
        condition.unlock()
    }
}
