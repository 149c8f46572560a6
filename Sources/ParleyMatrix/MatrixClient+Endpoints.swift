import Foundation
import ParleyCore

/// The Client-Server endpoints Parley uses, as thin typed wrappers over `request`.
extension MatrixClient {
    /// The result of a password login.
    public struct LoginResult: Sendable, Hashable {
        /// The full user id the server logged in.
        public var userID: String
        /// The bearer token for later requests.
        public var accessToken: String
        /// The device the token belongs to (reuse it on the next login).
        public var deviceID: String
    }

    /// `POST /login` with a password; reusing `deviceID` keeps the device (and its txn ids).
    public func login(user: String, password: String, deviceID: String?, deviceName: String) async throws -> LoginResult {
        var body: [String: JSONValue] = [
            "type": "m.login.password",
            "identifier": ["type": "m.id.user", "user": .string(user)],
            "password": .string(password),
            "initial_device_display_name": .string(deviceName),
        ]
        if let deviceID { body["device_id"] = .string(deviceID) }
        let answer = try await request("POST", Self.clientPath("login"), body: .object(body))
        guard let userID = answer["user_id"]?.stringValue, let token = answer["access_token"]?.stringValue,
              let device = answer["device_id"]?.stringValue
        else { throw ParleyError(.serverError, "login answer lacks user_id, access_token or device_id") }
        return LoginResult(userID: userID, accessToken: token, deviceID: device)
    }

    /// `GET /account/whoami`: the user (and device) the access token belongs to.
    public func whoami() async throws -> (userID: String, deviceID: String?) {
        let answer = try await request("GET", Self.clientPath("account", "whoami"))
        guard let userID = answer["user_id"]?.stringValue else {
            throw ParleyError(.serverError, "whoami answer lacks user_id")
        }
        return (userID, answer["device_id"]?.stringValue)
    }

    /// `POST /user/{userId}/filter`; returns the filter id.
    public func uploadFilter(userID: String, filter: JSONValue) async throws -> String {
        let answer = try await request("POST", Self.clientPath("user", userID, "filter"), body: filter)
        guard let id = answer["filter_id"]?.stringValue else { throw ParleyError(.serverError, "filter answer lacks filter_id") }
        return id
    }

    /// `GET /sync`; the client timeout is the server's long-poll `timeout` plus `margin`.
    public func sync(filterID: String?, since: String?, timeout: Duration, margin: Duration = .seconds(15)) async throws -> JSONValue {
        var query: [(String, String)] = [("timeout", String(timeout.components.seconds * 1000)), ("set_presence", "offline")]
        if let filterID { query.append(("filter", filterID)) }
        if let since { query.append(("since", since)) }
        return try await request("GET", Self.clientPath("sync"), query: query, timeout: timeout + margin, limit: syncResponseLimit)
    }

    /// `PUT /rooms/{roomId}/send/{eventType}/{txnId}`: idempotent per device and txn id.
    public func send(room: String, type: String, txnID: String, content: JSONValue) async throws -> String {
        let answer = try await request("PUT", Self.clientPath("rooms", room, "send", type, txnID), body: content)
        return try Self.eventID(answer)
    }

    /// `PUT /rooms/{roomId}/redact/{eventId}/{txnId}`.
    @discardableResult
    public func redact(room: String, eventID: String, txnID: String, reason: String? = nil) async throws -> String {
        let body: JSONValue = reason.map { ["reason": .string($0)] } ?? [:]
        let answer = try await request("PUT", Self.clientPath("rooms", room, "redact", eventID, txnID), body: body)
        return try Self.eventID(answer)
    }

    /// `POST /join/{roomIdOrAlias}`; returns the room id.
    @discardableResult
    public func join(_ roomIDOrAlias: String) async throws -> String {
        let answer = try await request("POST", Self.clientPath("join", roomIDOrAlias), body: [:])
        guard let room = answer["room_id"]?.stringValue else { throw ParleyError(.serverError, "join answer lacks room_id") }
        return room
    }

    /// `POST /rooms/{roomId}/leave`.
    public func leave(room: String) async throws {
        try await request("POST", Self.clientPath("rooms", room, "leave"), body: [:])
    }

    /// `POST /rooms/{roomId}/invite`.
    public func invite(room: String, user: String) async throws {
        try await request("POST", Self.clientPath("rooms", room, "invite"), body: ["user_id": .string(user)])
    }

    /// `POST /createRoom` with a full request body; returns the room id.
    public func createRoom(_ body: JSONValue) async throws -> String {
        let answer = try await request("POST", Self.clientPath("createRoom"), body: body)
        guard let room = answer["room_id"]?.stringValue else { throw ParleyError(.serverError, "createRoom answer lacks room_id") }
        return room
    }

    /// `GET /rooms/{roomId}/messages` (one page).
    public func messages(room: String, from token: String?, direction: String, limit: Int, filter: JSONValue? = nil) async throws -> JSONValue {
        var query: [(String, String)] = [("dir", direction), ("limit", String(limit))]
        if let token { query.append(("from", token)) }
        if let filter { query.append(("filter", filter.jsonString())) }
        return try await request("GET", Self.clientPath("rooms", room, "messages"), query: query)
    }

    /// `GET /rooms/{roomId}/event/{eventId}`.
    public func event(room: String, eventID: String) async throws -> JSONValue {
        try await request("GET", Self.clientPath("rooms", room, "event", eventID))
    }

    /// `GET /rooms/{roomId}/state/{type}/{key}`; nil when the room has no such state event.
    public func state(room: String, type: String, key: String = "") async throws -> JSONValue? {
        do {
            return try await request("GET", Self.clientPath("rooms", room, "state", type, key))
        } catch let error as ParleyError where error.code == .notFound {
            return nil
        }
    }

    /// `PUT /rooms/{roomId}/state/{type}/{key}`.
    public func setState(room: String, type: String, key: String = "", content: JSONValue) async throws {
        try await request("PUT", Self.clientPath("rooms", room, "state", type, key), body: content)
    }

    /// `GET /v1/rooms/{roomId}/relations/{eventId}/{relType}/{eventType}` (first page, up to 100).
    public func relations(room: String, eventID: String, relType: String, eventType: String) async throws -> [JSONValue] {
        let path = Self.clientPath(version: "v1", ["rooms", room, "relations", eventID, relType, eventType])
        let answer = try await request("GET", path,
                                       query: [("limit", "100")])
        return answer["chunk"]?.arrayValue ?? []
    }

    /// `GET /user/{userId}/account_data/{type}`; nil when unset.
    public func accountData(userID: String, type: String) async throws -> JSONValue? {
        do {
            return try await request("GET", Self.clientPath("user", userID, "account_data", type))
        } catch let error as ParleyError where error.code == .notFound {
            return nil
        }
    }

    /// `PUT /user/{userId}/account_data/{type}`.
    public func setAccountData(userID: String, type: String, content: JSONValue) async throws {
        try await request("PUT", Self.clientPath("user", userID, "account_data", type), body: content)
    }

    /// `GET /directory/room/{roomAlias}`; returns the room id.
    public func resolveAlias(_ alias: String) async throws -> String {
        let answer = try await request("GET", Self.clientPath("directory", "room", alias))
        guard let room = answer["room_id"]?.stringValue else { throw ParleyError(.serverError, "alias answer lacks room_id") }
        return room
    }

    /// `DELETE /directory/room/{roomAlias}`.
    public func deleteAlias(_ alias: String) async throws {
        try await request("DELETE", Self.clientPath("directory", "room", alias))
    }

    /// `GET /rooms/{roomId}/joined_members`: the joined user ids, sorted.
    public func joinedMembers(room: String) async throws -> [String] {
        let answer = try await request("GET", Self.clientPath("rooms", room, "joined_members"))
        return (answer["joined"]?.objectValue?.keys).map { $0.sorted() } ?? []
    }

    /// `GET /rooms/{roomId}/members?not_membership=leave`: the users joined or invited (or
    /// banned: left out), sorted. An encrypted room's key goes to the invited too, so a message
    /// sent right after an invite (a new direct room) can be read once they join.
    public func joinedAndInvitedMembers(room: String) async throws -> [String] {
        let answer = try await request("GET", Self.clientPath("rooms", room, "members"), query: [("not_membership", "leave")])
        let members = (answer["chunk"]?.arrayValue ?? []).compactMap { event -> String? in
            let membership = event["content"]?["membership"]?.stringValue
            guard membership == "join" || membership == "invite" else { return nil }
            return event["state_key"]?.stringValue
        }
        return Set(members).sorted()
    }

    /// `GET /profile/{userId}`.
    public func profile(userID: String) async throws -> JSONValue {
        try await request("GET", Self.clientPath("profile", userID))
    }

    /// `PUT /profile/{userId}/displayname`.
    public func setDisplayName(userID: String, _ name: String) async throws {
        try await request("PUT", Self.clientPath("profile", userID, "displayname"), body: ["displayname": .string(name)])
    }

    /// `PUT /profile/{userId}/avatar_url` (an `mxc://` URL).
    public func setAvatarURL(userID: String, _ url: String) async throws {
        try await request("PUT", Self.clientPath("profile", userID, "avatar_url"), body: ["avatar_url": .string(url)])
    }

    private static func eventID(_ answer: JSONValue) throws -> String {
        guard let id = answer["event_id"]?.stringValue else { throw ParleyError(.serverError, "answer lacks event_id") }
        return id
    }
}

extension MatrixClient {
    /// `GET /joined_rooms`.
    public func joinedRooms() async throws -> [String] {
        let answer = try await request("GET", Self.clientPath("joined_rooms"))
        return answer["joined_rooms"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
