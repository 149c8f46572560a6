import ParleyBots
import ParleyCore

/// Who exists in a test's fresh hub: the test user, the bot, every user with a profile, every
/// user and group the file names (`to:`, `in:`, `as:`), the static targets of the bot's scheduled
/// broadcasts and the groups of its hand-off queues (`group:<queue>`). Groups have the test
/// user and the bot as members, and whoever speaks in them (`as:` with `in:`): the server
/// would refuse a non-member's message. Worked out once per file.
struct FlowTestCast: Sendable {
    /// Users with their profiles, in a stable order.
    var users: [Profile]
    /// Group ids, sorted.
    var groups: [String]
    /// Each group's members: the test user, the bot, then its other speakers in order of appearance.
    var members: [String: [String]]
    /// Users other than the test user who speak (`as:`), in order of appearance.
    var speakers: [String]

    init(file: FlowTestFile, bot: LoadedBot, queues: Set<String> = []) {
        var profiles: [String: Profile] = [:]
        var order: [String] = []
        func addUser(_ id: String, _ profile: Profile? = nil) {
            if profiles[id] == nil { order.append(id) }
            if let profile { profiles[id] = profile } else if profiles[id] == nil { profiles[id] = Profile(id: id) }
        }
        var groups: Set<String> = []
        func addTarget(_ target: String) {
            guard let channel = Channel(target: target) else { return }
            switch channel.kind {
            case .person: addUser(channel.id)
            case .group: groups.insert(channel.id)
            case .local: break
            }
        }
        addUser(file.userID)
        addUser(bot.id, Profile(id: bot.id, name: bot.definition.name?.value, avatar: bot.definition.avatar?.value))
        for entry in file.profiles?.entries ?? [] {
            let value = entry.value
            addUser(entry.name, Profile(id: entry.name, name: value.name, avatar: value.avatar, phone: value.phone,
                                        email: value.email, org: value.org, title: value.title))
        }
        var speakers: [String] = []
        var groupSpeakers: [String: [String]] = [:]
        for test in file.tests {
            for step in test.steps {
                switch step.kind {
                case .send(_, let channel, let speaker)?:
                    if let channel { addTarget(channel.value) }
                    guard let id = speaker?.value, id != file.userID else { break }
                    addUser(id)
                    if !speakers.contains(id) { speakers.append(id) }
                    if let group = channel.flatMap({ Channel(target: $0.value) }), group.kind == .group,
                       !groupSpeakers[group.id, default: []].contains(id) {
                        groupSpeakers[group.id, default: []].append(id)
                    }
                case .expect(let expectation)?: if let to = expectation.to { addTarget(to.value) }
                default: break
                }
            }
        }
        for schedule in bot.definition.schedules {
            for target in schedule.broadcast?.value.to ?? [] { addTarget(target.value) }
        }
        groups.formUnion(queues)
        users = order.compactMap { profiles[$0] }
        self.groups = groups.sorted()
        self.speakers = speakers
        let everyone = file.userID == bot.id ? [file.userID] : [file.userID, bot.id]
        members = Dictionary(uniqueKeysWithValues: self.groups.map { group in
            (group, everyone + (groupSpeakers[group] ?? []))
        })
    }
}
