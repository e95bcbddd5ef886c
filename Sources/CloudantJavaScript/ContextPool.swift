internal import CloudantCore
internal import Foundation

/// The engine instances (``JavaScriptContext``) of one ``JavaScriptEngine``: made when a call needs one, up to
/// the configured maximum, each lent to one caller at a time, and thrown away once broken (a time-out).
///
/// A caller that finds every instance busy waits for one; no caller keeps an instance across a suspension
/// (design functions run synchronously), so a wait is bounded by the calls in flight.
final class ContextPool: @unchecked Sendable {
    private let configuration: JavaScriptEngine.Configuration
    /// Guards `idle`, `count`, `lent`, `retired` and `liveMapSets`.
    private let condition = NSCondition()
    private var idle: [JavaScriptContext] = []
    private var count = 0
    /// The instances lent to a call now.
    private var lent: Set<ObjectIdentifier> = []
    /// Lent instances a reload retired: dropped when they come back.
    private var retired: Set<ObjectIdentifier> = []
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

    /// Drops the instances at rest and retires the lent ones, so every later call gets a new instance.
    func reload() {
        condition.lock()
        count -= idle.count
        idle.removeAll()
        retired.formUnion(lent)
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
            lent.insert(ObjectIdentifier(context))
            let live = liveMapSets
            condition.unlock()
            for stale in context.mapSets.subtracting(live) { context.dropMapSet(stale) }
            return context
        }
        count += 1
        condition.unlock()
        do {
            let context = try JavaScriptContext(
                timeLimit: configuration.timeLimit, reduceLimit: configuration.reduceLimit, log: configuration.log)
            condition.lock()
            lent.insert(ObjectIdentifier(context))
            condition.unlock()
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
        let identifier = ObjectIdentifier(context)
        lent.remove(identifier)
        if retired.remove(identifier) != nil || context.isBroken {
            count -= 1
        } else {
            idle.append(context)
        }
        condition.signal()
        condition.unlock()
    }
}
