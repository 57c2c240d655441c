// Postgres's `integer` (int4), the type of every id column: ids and page
// numbers above it can be neither stored nor looked up.
export const POSTGRES_INT_MAX = 2_147_483_647;
