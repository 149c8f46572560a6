import ParleyBots

/// An agent who may sign in to the console: `http.agents.ID`.
struct ConsoleAgent: Sendable, Equatable {
    /// The user id the bots know the agent by: the console acts as this agent.
    let id: String
    let token: String
    /// The queues whose tickets the agent sees and acts on, in the config's order.
    let queues: [String]

    func serves(_ queue: String) -> Bool { queues.contains(queue) }
}

/// The agents of `http.agents` (checked already by `WebDoorValidator`), found by token.
struct ConsoleAgents: Sendable {
    let all: [ConsoleAgent]

    init(_ config: OrderedMap<AgentLogin>?) {
        all = (config?.entries ?? []).map { entry in
            ConsoleAgent(id: entry.name, token: entry.value.token.value, queues: entry.value.queues.value.map(\.value))
        }
    }

    /// The agent whose token `given` is. Compared with every agent's token, each in constant
    /// time, never stopping at a match: how long it takes tells neither how much of a guess
    /// was right nor which agent it matched. (Validation makes the tokens distinct.)
    func agent(token given: String) -> ConsoleAgent? {
        var found: ConsoleAgent?
        for agent in all where OperationsRoutes.constantTimeEqual(given, agent.token) && found == nil { found = agent }
        return found
    }
}
