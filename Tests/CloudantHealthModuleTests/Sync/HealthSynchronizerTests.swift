import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Health sync")
struct HealthSynchronizerTests {
    private func heartRate(_ index: Int, bpm: Double = 60) -> AnyHealthSample {
        let start = TestDates.june1.addingTimeInterval(Double(index) * 60)
        return .quantity(QuantitySample(
            uuid: String(format: "00000000-0000-0000-0000-%012d", index), typeIdentifier: "HKQuantityTypeIdentifierHeartRate",
            value: bpm + Double(index % 7), unit: "count/min", startDate: start, endDate: start,
            startUTCOffset: TestDates.pacific))
    }

    private func uuids(_ samples: [AnyHealthSample]) -> Set<String> { Set(samples.map(\.sample.uuid)) }

    private func storedUUIDs(_ store: DocumentStore) async throws -> Set<String> {
        uuids(try await HealthStore(store: store).collection(healthKitSampleType: .quantity).getSamples())
    }

    @Test func pullsEverySamplePageByPageWithNoCapAndThenHasNothingToDo() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let phone = InMemoryHealthSampleSource()
        await phone.save((0..<75).map { heartRate($0) })
        let sync = HealthSynchronizer(store: harness.store, source: phone, name: "phone", pageSize: 20)

        let first = try await sync.synchronize()
        #expect(first.pulledSamples == 75 && first.storeWrites == 75)
        #expect(first.pushedSamples == 0)
        #expect(try await storedUUIDs(harness.store) == uuids(await phone.samples))

        // A new synchronizer reads the persisted anchors: nothing moves either way.
        let again = try await HealthSynchronizer(store: harness.store, source: phone, name: "phone", pageSize: 20).synchronize()
        #expect(again == HealthSyncReport())
        #expect(try await harness.store.localDocument(id: "_local/health-sync-phone")["sourceAnchor"] != nil)
    }

    @Test func storeAdditionsEditsAndDeletionsReachTheSource() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let phone = InMemoryHealthSampleSource()
        let sync = HealthSynchronizer(store: harness.store, source: phone, pageSize: 7)
        let samples = (0..<40).compactMap { sample -> QuantitySample? in
            if case .quantity(let quantity) = heartRate(sample) { return quantity } else { return nil }
        }
        let stored = try await harness.store.add(samples)
        let pushed = try await sync.synchronize()
        #expect(pushed.pushedSamples == 40)
        #expect(uuids(await phone.samples) == Set(samples.map(\.uuid)))

        var edited = stored[3]
        edited.value = 190
        try await harness.store.update([edited])
        try await harness.store.delete(Array(stored[10..<15]))
        let second = try await sync.synchronize()
        #expect(second.pushedSamples == 1 && second.pushedDeletions == 5)
        let held = await phone.samples
        #expect(held.count == 35)
        #expect(held.contains { if case .quantity(let q) = $0 { q.uuid == edited.uuid && q.value == 190 } else { false } })
    }

    @Test func sourceDeletionsAndEditsReachTheStoreAndAreNotEchoedBack() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let phone = InMemoryHealthSampleSource()
        await phone.save((0..<12).map { heartRate($0) })
        let sync = HealthSynchronizer(store: harness.store, source: phone)
        _ = try await sync.synchronize()

        await phone.delete(uuids: [heartRate(2).sample.uuid, heartRate(5).sample.uuid])
        await phone.save([heartRate(7, bpm: 120)])
        let report = try await sync.synchronize()
        #expect(report.pulledDeletions == 2 && report.pulledSamples == 1 && report.storeWrites == 3)
        #expect(report.pushedSamples == 0 && report.pushedDeletions == 0)
        let stored = try await HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples()
        #expect(uuids(stored) == uuids(await phone.samples))
        #expect(stored.contains { if case .quantity(let q) = $0 { q.uuid == heartRate(7).sample.uuid && q.value >= 120 } else { false } })

        // A uuid deleted and then saved again comes back.
        await phone.save([heartRate(2)])
        #expect(try await sync.synchronize().storeWrites == 1)
        #expect(try await storedUUIDs(harness.store).contains(heartRate(2).sample.uuid))
    }

    @Test func twoRealStoresConvergeBothWaysAndResyncingIsIdempotent() async throws {
        let phone = try HealthTestStore(name: "phone")
        let backup = try HealthTestStore(name: "backup")
        defer { phone.remove(); backup.remove() }
        let onPhone = (0..<45).compactMap { index -> QuantitySample? in
            if case .quantity(let q) = heartRate(index) { q } else { nil }
        }
        let onBackup = (100..<133).compactMap { index -> QuantitySample? in
            if case .quantity(let q) = heartRate(index) { q } else { nil }
        }
        try await phone.store.add(onPhone)
        try await backup.store.add(onBackup)
        let sync = HealthSynchronizer(
            store: phone.store, source: StoreHealthSampleSource(store: backup.store), name: "backup", pageSize: 16)

        let first = try await sync.synchronize()
        #expect(first.storeWrites == 33 && first.pushedSamples == 45)
        let all = Set((onPhone + onBackup).map(\.uuid))
        #expect(try await storedUUIDs(phone.store) == all)
        #expect(try await storedUUIDs(backup.store) == all)

        let deleted = try await backup.store.get(QuantitySample.self, id: onPhone[0].uuid)
        try await backup.store.delete([deleted])
        let second = try await sync.synchronize()
        #expect(second.pulledDeletions == 1 && second.pushedDeletions == 0 && second.pushedSamples == 0)
        #expect(try await storedUUIDs(phone.store) == all.subtracting([onPhone[0].uuid]))
        let third = try await sync.synchronize()
        #expect(third == HealthSyncReport())
    }

    @Test func activitySummariesAndClinicalRecordsSyncBothWaysAndThenRest() async throws {
        let phone = try HealthTestStore(name: "phone")
        let backup = try HealthTestStore(name: "backup")
        defer { phone.remove(); backup.remove() }
        let days = (1...3).compactMap { CalendarDay(year: 2024, month: 6, day: $0) }
        let summaries = days.map { ActivitySummarySample(day: $0, appleStandHours: HealthQuantity(value: 9, unit: .count)) }
        try await phone.store.add(summaries)
        let record = ActivitySummaryAndClinicalRecordTests.labResult(
            uuid: "C1000000-0000-4000-8000-000000000009", at: TestDates.june1)
        try await backup.store.add([record])
        let sync = HealthSynchronizer(store: phone.store, source: StoreHealthSampleSource(store: backup.store), name: "backup")

        // The pull sees the three pushed summaries echoed back, identical, and writes only the record.
        let first = try await sync.synchronize()
        #expect(first.pushedSamples == 3 && first.storeWrites == 1)
        var pulled = try await phone.store.get(ClinicalRecordSample.self, id: record.id)
        pulled.revId = nil
        #expect(pulled == record)
        var pushed = try await backup.store.get(ActivitySummarySample.self, ids: summaries.map(\.id))
        for index in pushed.indices { pushed[index].revId = nil }
        #expect(Set(pushed) == Set(summaries))

        var edited = try await phone.store.get(ActivitySummarySample.self, id: summaries[0].id)
        edited.appleStandHours = HealthQuantity(value: 12, unit: .count)
        try await phone.store.update([edited])
        let second = try await sync.synchronize()
        #expect(second.pushedSamples == 1 && second.storeWrites == 0)
        #expect(try await backup.store.get(ActivitySummarySample.self, id: edited.id).appleStandHours?.value == 12)
        #expect(try await sync.synchronize() == HealthSyncReport())
    }
}
