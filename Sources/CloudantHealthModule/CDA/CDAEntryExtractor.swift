/// Turns a section's `<entry>` into clinical statements: each `observation` and `substanceAdministration`
/// inside it (organizers and acts are containers), with the allergen or drug found beside it.
enum CDAEntryExtractor {
    static func entries(in entry: XMLElementView) -> [CDAEntry] {
        statements(in: entry).map(statement)
    }

    /// Observations and administrations, outermost first; an observation nested in another
    /// (an allergy's reaction) is its own statement.
    private static func statements(in element: XMLElementView) -> [XMLElementView] {
        element.children.flatMap { child -> [XMLElementView] in
            let nested = statements(in: child)
            return ["observation", "substanceAdministration"].contains(child.name) ? [child] + nested : nested
        }
    }

    private static func statement(_ element: XMLElementView) -> CDAEntry {
        var entry = CDAEntry(code: element.child("code").map(CDAExtractor.code(of:)))
        if let value = element.child("value") {
            let type = value.attribute("type") ?? ""
            if value.attribute("code") != nil || type.hasPrefix("CD") || type == "CE" || type == "CV" {
                entry.valueCode = CDAExtractor.code(of: value)
            } else {
                entry.value = value.attribute("value") ?? value.text
                entry.unit = value.attribute("unit")
            }
        }
        if let time = element.child("effectiveTime") {
            entry.time = CDAExtractor.timestamp(time.attribute("value") ?? time.child("low")?.attribute("value"))
            entry.endTime = CDAExtractor.timestamp(time.child("high")?.attribute("value"))
        }
        if let material = element.child("consumable", "manufacturedProduct", "manufacturedMaterial", "code") {
            entry.substance = CDAExtractor.code(of: material)
            if entry.code == nil { entry.code = entry.substance }
        } else if let allergen = element.child("participant", "participantRole", "playingEntity", "code") {
            entry.substance = CDAExtractor.code(of: allergen)
        }
        return entry
    }
}
