import Foundation
import ParleyBots
import ParleyHTTPServer

/// The operations listener of `http.listen`: `/healthz`, `/metrics`, `/api/v1/`, `/console`.
public final class OperationsListener: Sendable {
    /// Where it listens, as `http://host:port` (the port the system chose for port 0).
    public let url: String
    private let server: HTTPServer
    /// The visitors' sessions, when `http.web_chat` is set.
    let door: WebChatDoor?

    /// Starts listening for `running` as `http` says; nil when `http.listen` is absent.
    /// - Throws: `HostError` naming the address when it cannot listen there.
    public static func start(_ running: RunningHost, http: HTTPConfig?) throws(HostError) -> OperationsListener? {
        try start(running, http: http) { _ in }
    }

    /// `start`, with the web chat's settings changed by `tune` (tests: a short event log).
    static func start(_ running: RunningHost, http: HTTPConfig?, tune: (inout WebChatSettings) -> Void) throws(HostError) -> OperationsListener? {
        guard let text = http?.listen?.value else { return nil }
        let address: ListenAddress
        switch ListenAddress.parse(text) {
        case .success(let parsed): address = parsed
        case .failure(let error): throw HostError("http.listen: \(error.message)")
        }
        var door: WebChatDoor?
        if let chat = http?.webChat, let hub = running.hub {
            var settings = WebChatSettings(chat, maxMessageBytes: running.host.options.maxMessageBytes)
            tune(&settings)
            let store: WebSessionStore
            do { store = try WebSessionStore.open(running.storage, logger: running.host.logger, clock: running.host.clock) } catch {
                throw HostError("cannot open the web sessions' store in \(running.storage.shownPath): \(error)")
            }
            door = WebChatDoor(settings: settings, hub: hub, clock: running.host.clock, store: store) { running.registry }
        }
        let routes = OperationsRoutes(running: running, adminToken: http?.adminToken?.value, webChat: door.map(WebChatRoutes.init),
                                      console: ConsoleRoutes(running: running, agents: http?.agents))
        var options = Self.options
        // Each visitor and agent holds an event stream open besides their requests.
        if http?.webChat != nil || http?.agents != nil { options.maxConnections = 4_096 }
        do {
            let server = try HTTPServer(host: address.host, port: address.port, options: options,
                                        immediate: { routes.answerAtOnce($0) }) { await routes.handle($0) }
            var bound = address
            bound.port = server.port
            door?.start()
            return OperationsListener(server: server, url: "http://\(bound)", door: door)
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

    private init(server: HTTPServer, url: String, door: WebChatDoor?) {
        self.server = server
        self.url = url
        self.door = door
    }

    /// Stops listening and closes every connection, then ends the visitors' sessions.
    public func stop() {
        server.stop()
        door?.stop()
    }
}
