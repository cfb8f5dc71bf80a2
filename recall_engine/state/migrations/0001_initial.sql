-- Every kind of state, in one schema (the SQLite files of the embedded profile, as tables).

-- identity: users, dataset owners, grants
CREATE TABLE IF NOT EXISTS users (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
    created_at TEXT NOT NULL, is_default INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, id), UNIQUE (tenant_id, name));
CREATE TABLE IF NOT EXISTS dataset_owners (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, owner_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, dataset_id));
CREATE TABLE IF NOT EXISTS grants (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, user_id TEXT NOT NULL,
    permission TEXT NOT NULL CHECK (permission IN ('read', 'write')),
    PRIMARY KEY (tenant_id, dataset_id, user_id));

-- tenants, sub-tenants, API key digests (never a key)
CREATE TABLE IF NOT EXISTS tenants (
    id TEXT PRIMARY KEY, schema TEXT NOT NULL, created_at TEXT NOT NULL, store TEXT);
CREATE TABLE IF NOT EXISTS api_keys (
    digest TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, created_at TEXT NOT NULL,
    key_id TEXT, prefix TEXT);
CREATE TABLE IF NOT EXISTS sub_tenants (
    tenant_id TEXT NOT NULL, sub_tenant_id TEXT NOT NULL, name TEXT,
    PRIMARY KEY (tenant_id, sub_tenant_id));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- A counter every change to the registry's tables bumps, so that each replica
-- knows when to reload its cache (SQLite's PRAGMA data_version, for a server).
CREATE TABLE IF NOT EXISTS registry_version (id INTEGER PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO registry_version VALUES (1, 0) ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION bump_registry_version() RETURNS trigger AS $$
BEGIN
    UPDATE registry_version SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END $$ LANGUAGE plpgsql SET search_path FROM CURRENT;
CREATE OR REPLACE TRIGGER tenants_changed AFTER INSERT OR UPDATE OR DELETE ON tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_version();
CREATE OR REPLACE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_version();
CREATE OR REPLACE TRIGGER sub_tenants_changed AFTER INSERT OR UPDATE OR DELETE ON sub_tenants
    FOR EACH STATEMENT EXECUTE FUNCTION bump_registry_version();

-- sessions and feedback (rowid: the insertion order, as SQLite's implicit rowid)
CREATE TABLE IF NOT EXISTS sessions (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
    last_active DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant_id, user_id, session_id));
CREATE TABLE IF NOT EXISTS qa (
    rowid BIGSERIAL, qa_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
    session_id TEXT NOT NULL, time DOUBLE PRECISION NOT NULL, question TEXT NOT NULL,
    context TEXT NOT NULL, answer TEXT NOT NULL, element_ids TEXT NOT NULL,
    dataset_ids TEXT NOT NULL, feedback_score INTEGER, feedback_text TEXT);
CREATE INDEX IF NOT EXISTS qa_session ON qa (tenant_id, user_id, session_id, time);
CREATE TABLE IF NOT EXISTS element_feedback (
    tenant_id TEXT NOT NULL, element_id TEXT NOT NULL, score_sum DOUBLE PRECISION NOT NULL,
    count INTEGER NOT NULL, PRIMARY KEY (tenant_id, element_id));

-- the ingest ledger and the per-tenant writer lease
CREATE TABLE IF NOT EXISTS ingest_ledger (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, data_id TEXT NOT NULL,
    content_hash TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'committed')),
    holder TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tenant_id, dataset_id, data_id));
CREATE TABLE IF NOT EXISTS writer_leases (
    tenant_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL);
