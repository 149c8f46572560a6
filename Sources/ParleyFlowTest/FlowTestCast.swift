import ParleyBots
import ParleyCore

/// Who exists in a test's fresh hub: the test user, the bot, every user with a profile, every
/// user and group the file names (`to:`, `in:`), the static targets of the bot's scheduled
/// broadcasts and the groups of its hand-off queues (`group:<queue>`). Groups have the test
/// user and the bot as members. Worked out once per file.
struct FlowTestCast: Sendable {
    /// Users with their profiles, in a stable order.
    var users: [Profile]
    /// Group ids, sorted.
    var groups: [String]

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
        for test in file.tests {
            for step in test.steps {
                switch step.kind {
                case .send(_, let channel?)?: addTarget(channel.value)
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
    }
}
