import CloudantTestSupport
import Testing

/// A bare `swift test` runs as many tests at once as CI, so the suite behaves the same on a developer's machine.
@Suite struct TestRunWidthTests {
    @Test func aBareTestRunGetsCIsWidthAndAWidthGivenInTheEnvironmentIsKept() throws {
        let width = try #require(TestRunWidth.current, "Swift Testing would start every test at once")
        #expect(width > 0)
        if TestRunWidth.setByTestProcess {
            #expect(width == TestRunWidth.defaultWidth)
            #expect(TestRunWidth.defaultWidth == 12)
        }
    }
}
