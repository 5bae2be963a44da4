// Applied in this order; never edit a migration that has landed, add a new one.
import { Migration20261121Initial } from './20261121-initial.ts';

export const MIGRATIONS = [{ name: '20261121-initial', class: Migration20261121Initial }];
