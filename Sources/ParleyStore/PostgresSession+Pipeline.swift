internal import CPQ

/// Several statements in one round trip (libpq's pipeline mode): what `Connection.batch` runs
/// on PostgreSQL. Each statement is prepared once as usual (the Parse goes in the same flight
/// the first time); wrapped in BEGIN … COMMIT when `atomic`, so the batch is one transaction
/// that costs one round trip instead of one per statement plus two.
extension PostgresSession {
    struct PipelinedStatement {
        var name: String
        var translated: PostgresDialect.Translated
        var original: String
        var values: [StoreValue]
    }

    /// Runs `statements` in one flight and returns the rows each changed. If one fails, the
    /// ones after it do not run, an atomic batch is rolled back, and its error is thrown.
    func pipeline(_ statements: [PipelinedStatement], atomic: Bool) throws -> [Int] {
        try reviveIfBroken()
        for statement in statements where statement.values.count != statement.translated.parameterCount {
            throw StoreError(code: 25, message: "\(statement.values.count) values for \(statement.translated.parameterCount) parameters",
                              sql: statement.original)
        }
        guard PQenterPipelineMode(handle) == 1 else { throw brokenPipeline("cannot enter pipeline mode") }
        defer { _ = PQexitPipelineMode(handle) }
        // What each command sent is, in order, to read its results against.
        enum Sent { case control, prepare(String), statement(Int) }
        var sent: [Sent] = []
        var ok = true
        func send(_ done: Int32, _ what: Sent) {
            if done != 1 { ok = false }
            sent.append(what)
        }
        if atomic { send(PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0), .control) }
        var preparing: Set<String> = []
        for (index, statement) in statements.enumerated() {
            if !prepared.contains(statement.name) && !preparing.contains(statement.name) {
                send(PQsendPrepare(handle, statement.name, statement.translated.sql, 0, nil), .prepare(statement.name))
                preparing.insert(statement.name)
            }
            let done = Self.withParameters(statement.values) { pointers, lengths, formats in
                PQsendQueryPrepared(handle, statement.name, Int32(statement.values.count), pointers, lengths, formats, 0)
            }
            send(done, .statement(index))
        }
        if atomic { send(PQsendQueryParams(handle, "COMMIT", 0, nil, nil, nil, nil, 0), .control) }
        guard ok, PQpipelineSync(handle) == 1 else { throw brokenPipeline("cannot send the pipeline") }

        var changes = Array(repeating: 0, count: statements.count)
        var failure: StoreError?
        var command = 0
        // Each command's results end with a NULL; the sync's result ends the flight. Bounded:
        // a connection that breaks meanwhile yields NULLs, counted against the commands sent.
        var nulls = 0
        while nulls <= sent.count + 1 {
            guard let result = PQgetResult(handle) else {
                nulls += 1
                command += 1
                if isBroken { break }
                continue
            }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC { break }
            guard command < sent.count else { continue }
            switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if case .statement(let index) = sent[command] {
                    changes[index] = Int(String(cString: PQcmdTuples(result))) ?? 0
                } else if case .prepare(let name) = sent[command] {
                    prepared.insert(name)
                }
            case PGRES_PIPELINE_ABORTED:
                break
            default:
                if failure == nil {
                    let sql: String
                    if case .statement(let index) = sent[command] { sql = statements[index].original } else { sql = "(pipeline)" }
                    failure = error(of: result, sql: sql)
                }
            }
        }
        if isBroken && failure == nil { failure = brokenPipeline("the connection broke during the pipeline") }
        if let failure {
            // The explicit transaction is left aborted by the failed command: end it.
            if atomic && !isBroken {
                _ = PQexitPipelineMode(handle)
                try? exec("ROLLBACK")
            }
            throw failure
        }
        return changes
    }

    private func brokenPipeline(_ what: String) -> StoreError {
        .unavailable("PostgreSQL \(StoreLocation.withoutPassword(url)): \(what): \(Self.trimmed(PQerrorMessage(handle)))")
    }
}
