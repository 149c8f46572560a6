import Foundation
import Testing
import YAMLCoding

/// Runs the official YAML test suite: the folder `PARLEY_YAML_TEST_SUITE` names, or
/// `shared/yaml-test-suite` beside the repository. The suite is optional data: a clone with
/// neither skips this test, visibly, instead of failing.
@Suite struct ConformanceTests {
    /// One case or sub-case folder.
    struct Case {
        let id: String
        let folder: URL
    }

    static func suiteFolder() -> URL? {
        let manager = FileManager.default
        if let named = ProcessInfo.processInfo.environment["PARLEY_YAML_TEST_SUITE"], !named.isEmpty {
            let folder = URL(fileURLWithPath: named)
            return manager.fileExists(atPath: folder.appendingPathComponent("README.md").path) ? folder : nil
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var folder = repository
        // The suite lives in `shared/` beside the repository (or beside a worktree's parent).
        for _ in 0..<3 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent("shared/yaml-test-suite")
            if manager.fileExists(atPath: candidate.appendingPathComponent("README.md").path) { return candidate }
        }
        return nil
    }

    static func cases(in suite: URL) throws -> [Case] {
        let manager = FileManager.default
        var cases: [Case] = []
        for name in try manager.contentsOfDirectory(atPath: suite.path).sorted() {
            let folder = suite.appendingPathComponent(name)
            if manager.fileExists(atPath: folder.appendingPathComponent("in.yaml").path) {
                cases.append(Case(id: name, folder: folder))
                continue
            }
            guard let subfolders = try? manager.contentsOfDirectory(atPath: folder.path) else { continue }
            for sub in subfolders.sorted() where manager.fileExists(atPath: folder.appendingPathComponent("\(sub)/in.yaml").path) {
                cases.append(Case(id: "\(name)/\(sub)", folder: folder.appendingPathComponent(sub)))
            }
        }
        return cases
    }

    /// Nil when the case behaves; otherwise what went wrong.
    static func check(_ testCase: Case) -> String? {
        let manager = FileManager.default
        guard let data = manager.contents(atPath: testCase.folder.appendingPathComponent("in.yaml").path) else {
            return "cannot read in.yaml"
        }
        let text = String(decoding: data, as: UTF8.self)
        let expectsError = manager.fileExists(atPath: testCase.folder.appendingPathComponent("error").path)
        let result = Result { () throws(YAMLErrors) -> [Node] in
            try parseYAMLDocuments(text, file: "in.yaml", mergeKeys: false)
        }
        if expectsError {
            switch result {
            case .success: return "accepted invalid YAML"
            case .failure(let errors):
                let positioned = !errors.errors.isEmpty && errors.errors.allSatisfy { $0.mark.line >= 1 && $0.mark.column >= 1 }
                return positioned ? nil : "rejected without a position: \(errors)"
            }
        }
        let documents: [Node]
        switch result {
        case .success(let parsed): documents = parsed
        case .failure(let errors): return "rejected valid YAML: \(errors.errors.first?.message ?? "")"
        }
        guard let json = manager.contents(atPath: testCase.folder.appendingPathComponent("in.json").path) else { return nil }
        let expected: [JSONLike]
        do {
            expected = try JSONLike.documents(in: String(decoding: json, as: UTF8.self))
        } catch {
            return "cannot read in.json: \(error)"
        }
        let actual = documents.map { JSONLike(node: $0) }
        guard actual.count == expected.count else { return "\(actual.count) documents, expected \(expected.count)" }
        for (got, want) in zip(actual, expected) where got != want {
            return "loaded \(got.map(\.description) ?? "a non-JSON key"), expected \(want)"
        }
        return nil
    }

    @Test(.enabled(if: suiteFolder() != nil,
                   "yaml-test-suite not found: set PARLEY_YAML_TEST_SUITE or put shared/yaml-test-suite beside the repository"))
    func yamlTestSuite() throws {
        let suite = try #require(Self.suiteFolder())
        let cases = try Self.cases(in: suite)
        #expect(cases.count > 300, "too few cases found in \(suite.path)")
        var passed = 0
        var known = 0
        for testCase in cases {
            let problem = Self.check(testCase)
            if let problem {
                if Self.knownFailures[testCase.id] != nil {
                    known += 1
                } else {
                    Issue.record("yaml-test-suite \(testCase.id): \(problem)")
                }
            } else {
                passed += 1
                if Self.knownFailures[testCase.id] != nil { print("yaml-test-suite: note: known failure \(testCase.id) now passes") }
            }
        }
        let ids = Set(cases.map(\.id))
        for id in Self.knownFailures.keys.sorted() where !ids.contains(id) {
            Issue.record("known failure \(id) is not a case of the suite")
        }
        print("yaml-test-suite: \(passed) passed, \(known) known libyaml failures, \(cases.count) total")
    }
}
