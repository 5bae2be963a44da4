/**
 * A connection to run SQL on, as the room bus and presence functions see it (src/realtime/): a pg client, or a
 * service's MikroORM transaction (transaction-sql.ts), so a service's change and what the room hears of it commit
 * together. It lives with the database code, below both of its users.
 */
export interface Sql {
  query<R extends Record<string, any> = any>(text: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}
