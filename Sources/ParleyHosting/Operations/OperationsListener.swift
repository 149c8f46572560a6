import Foundation
import ParleyBots
import ParleyHTTPServer

/// The operations listener of `http.listen`: `/healthz`, `/metrics`, `/api/v1/`, `/console`.
public final class OperationsListener: Sendable {
    /// Where it listens, as `http://host:port` (the port the system chose for port 0).
    public let url: String
    private let server: HTTPServer

    /// Starts listening for `running` as `http` says; nil when `http.listen` is absent.
    /// - Throws: `HostError` naming the address when it cannot listen there.
    public static func start(_ running: RunningHost, http: HTTPConfig?) throws(HostError) -> OperationsListener? {
        guard let text = http?.listen?.value else { return nil }
        let address: ListenAddress
        switch ListenAddress.parse(text) {
        case .success(let parsed): address = parsed
        case .failure(let error): throw HostError("http.listen: \(error.message)")
        }
        let routes = OperationsRoutes(running: running, adminToken: http?.adminToken?.value,
                                      console: ConsoleRoutes(running: running, agents: http?.agents))
        do {
            let server = try HTTPServer(host: address.host, port: address.port, options: Self.options,
                                        immediate: { routes.answerAtOnce($0) }) { await routes.handle($0) }
            var bound = address
            bound.port = server.port
            return OperationsListener(server: server, url: "http://\(bound)")
        } catch {
            throw HostError("http.listen: \(error.description)")
        }
    }

    /// Bodies up to 1 MB (the API's JSON is small); idle connections closed after 30 s; at
    /// most 512 connections: a flood is refused at the door. The listener has a thread of its
    /// own, so it never stands between the bots and their server.
    static let options: HTTPServerOptions = {
        var options = HTTPServerOptions()
        options.maxBodyBytes = 1 << 20
        options.idleTimeout = .seconds(30)
        options.maxConnections = 512
        options.maxConnectionsPerAddress = 0
        options.handlerTimeout = .seconds(30)
        return options
    }()

    private init(server: HTTPServer, url: String) {
        self.server = server
        self.url = url
    }

    /// Stops listening and closes every connection.
    public func stop() { server.stop() }
}
