/// Turns a section's `<entry>` into clinical statements: each `observation` and `substanceAdministration`
/// inside it (organizers and acts are containers), with the allergen or drug found beside it.
enum CDAEntryExtractor {
    /// Appends the statements under `entry` to `entries`, outermost first; an observation nested in another
    /// (an allergy's reaction) is its own statement.
    static func append(_ entry: XMLElementView, to entries: inout [CDAEntry]) {
        for child in entry.elements {
            if child.isNamed("observation") || child.isNamed("substanceAdministration") {
                entries.append(statement(child))
            }
            append(child, to: &entries)
        }
    }

    private static func statement(_ element: XMLElementView) -> CDAEntry {
        // One pass over the children finds every part a statement can have (the first of each name counts).
        var code: XMLElementView?
        var value: XMLElementView?
        var time: XMLElementView?
        var consumable: XMLElementView?
        var participant: XMLElementView?
        for child in element.elements {
            if child.isNamed("code") {
                if code == nil { code = child }
            } else if child.isNamed("value") {
                if value == nil { value = child }
            } else if child.isNamed("effectiveTime") {
                if time == nil { time = child }
            } else if child.isNamed("consumable") {
                if consumable == nil { consumable = child }
            } else if child.isNamed("participant") {
                if participant == nil { participant = child }
            }
        }
        var entry = CDAEntry(code: code.map(CDAExtractor.code(of:)))
        if let value {
            let type = value.attribute("type") ?? ""
            if value.attribute("code") != nil || type.hasPrefix("CD") || type == "CE" || type == "CV" {
                entry.valueCode = CDAExtractor.code(of: value)
            } else {
                entry.value = value.attribute("value") ?? value.text
                entry.unit = value.attribute("unit")
            }
        }
        if let time {
            entry.time = CDAExtractor.timestamp(time.attribute("value") ?? time.child("low")?.attribute("value"))
            entry.endTime = CDAExtractor.timestamp(time.child("high")?.attribute("value"))
        }
        if let material = consumable?.child("manufacturedProduct")?.child("manufacturedMaterial")?.child("code") {
            entry.substance = CDAExtractor.code(of: material)
            if entry.code == nil { entry.code = entry.substance }
        } else if let allergen = participant?.child("participantRole")?.child("playingEntity")?.child("code") {
            entry.substance = CDAExtractor.code(of: allergen)
        }
        return entry
    }
}
