/// Fencing on PostgreSQL: a bot's own schemas (its outbox, its Matrix session and crypto
/// store) refuse every write from a process that no longer holds the bot's lease.
///
/// A process that stops renewing (paused, cut off, slow) stops acting for the bot before the
/// lease expires; this is the database's own guarantee behind that: each table of a fenced
/// schema gets a statement trigger that finds the lease row at the connection's generation
/// (`SET parley.fence`) and share-locks it until the transaction ends — so a takeover, which
/// bumps the generation, waits for a write in flight, and every later write of the old owner
/// fails with SQLSTATE `PF001`. Connections without a fence (the operator's commands) pass.
enum Fencing {
    /// The SQLSTATE of a write refused by the fence.
    static let refusedState = "PF001"

    /// Where the leases live (the cluster store's table, in the host's schema).
    static let leaseTable = "\"\(StoreLocation.defaultSchema)\".cluster_leases"

    /// Installs the check function and a trigger on every table of the connection's schema
    /// (idempotent: run after each store's migrations, under their lock).
    static func install(on connection: Connection) throws {
        try connection.execute("""
            CREATE OR REPLACE FUNCTION parley_fence_check() RETURNS trigger LANGUAGE plpgsql AS $fence$
            DECLARE
                fence TEXT := current_setting('parley.fence', true);
                held BOOLEAN;
            BEGIN
                IF fence IS NULL OR fence = '' THEN RETURN NULL; END IF;
                SELECT true INTO held FROM \(leaseTable)
                    WHERE name = split_part(fence, ' ', 1) AND generation = split_part(fence, ' ', 2)::bigint FOR SHARE;
                IF held IS NULL THEN
                    RAISE EXCEPTION 'stale lease: % is no longer held at generation %', split_part(fence, ' ', 1), split_part(fence, ' ', 2)
                        USING ERRCODE = '\(refusedState)';
                END IF;
                RETURN NULL;
            END $fence$
            """)
        let tables = try connection.rows("""
            SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'parley_migrations'
            """).compactMap(\.first?.string)
        for table in tables {
            try connection.execute("""
                CREATE OR REPLACE TRIGGER parley_fence BEFORE INSERT OR UPDATE OR DELETE ON "\(table)"
                FOR EACH STATEMENT EXECUTE FUNCTION parley_fence_check()
                """)
        }
    }
}

extension StoreError {
    /// True when a fenced write was refused: this process no longer holds the bot's lease.
    public var isStaleLease: Bool { sqlState == Fencing.refusedState }
}
