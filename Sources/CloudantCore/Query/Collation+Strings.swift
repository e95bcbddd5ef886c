extension Collation {
    /// Compares two strings as CouchDB does: with ICU's root collator (`ucol_open("")`), the order of the
    /// Unicode Collation Algorithm with CLDR's root data at tertiary strength.
    ///
    /// Level by level over the whole strings:
    /// 1. **Primary**, the base characters: whitespace, punctuation and symbols first, then currency
    ///    signs, digits (any script's, `½` beside `1`), then the scripts' letters, case- and accent-blind.
    ///    For ASCII: `TAB LF VT FF CR SPACE _ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $
    ///    0 … 9 a … z`. A string whose base characters are a prefix of the other's sorts first
    ///    (`"a" < "aa"`).
    /// 2. **Secondary**, accents: `"e" < "é" < "f"`.
    /// 3. **Tertiary**, case and variant forms: `"a" < "A" < "aa" < "b"`; `"ﬁ"` after `"fi"`, before `"fj"`.
    ///
    /// Strings equal at all three levels are equal: canonically equivalent ones, and ones that differ only in
    /// ignorable characters (most control characters: `"ab"` equals `"a\u{1}b"`). CouchDB then orders view
    /// and index rows with equal keys by document id, and so does the store.
    ///
    /// - Returns: `-1`, `0` or `1`.
    public static func compareStrings(_ a: String, _ b: String) -> Int {
        // Dates, ids and codes, as range conditions compare them with every candidate: ICU's weights read
        // from a table (the same answer, checked against ICU in `ASCIISortKeyTests`).
        if let order = ASCIISortKey.shared?.order(a, b) { return order }
        return ICUCollator.compare(a, b)
    }
}
