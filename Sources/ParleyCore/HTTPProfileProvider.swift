import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Profiles from an HTTP JSON endpoint of the user's own system.
///
/// The URL template's `{ids}` is replaced by the ids, percent-encoded and comma-separated
/// (`https://example.com/users?ids={ids}`). The answer is a JSON array of profile objects, or
/// an object with such an array under `profiles`; each needs `id` and may have `name`,
/// `avatar`, `phone`, `email`, `org`, `title`.
public struct HTTPProfileProvider: ProfileProvider {
    /// The URL with `{ids}` where the ids go.
    public let urlTemplate: String
    /// The whole request's time limit.
    public let timeout: Duration
    /// Extra request headers (an API key, …).
    public let headers: [String: String]
    /// Ids per request (at most 100).
    public let maxBatchSize: Int

    /// Checks that the template has `{ids}` and makes a URL; throws `invalidArgument` if not.
    public init(urlTemplate: String, timeout: Duration = .seconds(10), headers: [String: String] = [:], maxBatchSize: Int = 100) throws {
        guard urlTemplate.contains("{ids}"), URL(string: urlTemplate.replacingOccurrences(of: "{ids}", with: "x")) != nil else {
            throw ParleyError(.invalidArgument, "profile URL template must be a URL containing {ids}: \(urlTemplate)",
                              context: ["field": "url"])
        }
        self.urlTemplate = urlTemplate
        self.timeout = timeout
        self.headers = headers
        self.maxBatchSize = max(1, min(maxBatchSize, 100))
    }

    public func fetchProfiles(_ ids: [String]) async throws -> [Profile] {
        guard !ids.isEmpty else { return [] }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: ",&=+?#/")
        let joined = ids.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: ",")
        guard let url = URL(string: urlTemplate.replacingOccurrences(of: "{ids}", with: joined)) else {
            throw ParleyError(.invalidArgument, "cannot build a profile URL from \(urlTemplate)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout.timeInterval)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.load(request, timeout: timeout)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw Self.error(status: status, response: response, url: url) }
        return try Self.decode(data, url: url)
    }

    private static func load(_ request: URLRequest, timeout: Duration) async throws -> (Data, URLResponse) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.timeInterval
        configuration.timeoutIntervalForResource = timeout.timeInterval
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    let code: ParleyError.Code = (error as? URLError)?.code == .timedOut ? .timeout : .networkUnavailable
                    continuation.resume(throwing: ParleyError(code, "profile request \(request.url?.absoluteString ?? ""): \(error.localizedDescription)"))
                } else if let data, let response {
                    continuation.resume(returning: (data, response))
                } else {
                    continuation.resume(throwing: ParleyError(.networkUnavailable, "profile request returned nothing"))
                }
            }.resume()
        }
    }

    private static func error(status: Int, response: URLResponse, url: URL) -> ParleyError {
        let context = ["url": url.absoluteString, "status": String(status)]
        switch status {
        case 401: return ParleyError(.unauthorized, "profile endpoint answered 401", context: context)
        case 403: return ParleyError(.permissionDenied, "profile endpoint answered 403", context: context)
        case 404: return ParleyError(.notFound, "profile endpoint answered 404", context: context)
        case 429:
            let seconds = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init)
            return ParleyError(.rateLimited, "profile endpoint answered 429", retryAfter: seconds.map { .milliseconds(Int64($0 * 1000)) },
                               context: context)
        default: return ParleyError(.serverError, "profile endpoint answered \(status)", context: context)
        }
    }

    /// Parses the answer; a malformed entry throws `invalidContent` naming its index and field.
    static func decode(_ data: Data, url: URL) throws -> [Profile] {
        let json = try JSONValue.parse(data)
        guard let entries = json.arrayValue ?? json["profiles"]?.arrayValue else {
            throw ParleyError(.invalidContent, "profile endpoint \(url.absoluteString): expected a JSON array or {\"profiles\": [...]}")
        }
        return try entries.enumerated().map { index, entry in
            let fields = ContentFields(entry.objectValue ?? [:], contentName: "profile[\(index)]")
            return Profile(id: try fields.string("id"), name: try fields.optionalString("name"), avatar: try fields.optionalString("avatar"),
                           phone: try fields.optionalString("phone"), email: try fields.optionalString("email"),
                           org: try fields.optionalString("org"), title: try fields.optionalString("title"))
        }
    }
}
