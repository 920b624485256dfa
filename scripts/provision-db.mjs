#!/usr/bin/env node
// Provisions the database, per-service roles and schemas (what `npm start` does first).
// Production: DATABASE_ADMIN_URL=postgres://… MARKET_DB_ROLE_PASSWORDS=identity:…,catalog:… node scripts/provision-db.mjs
import { provisionDatabase } from './lib/provision.mjs';
import { loadLaunchSettings } from './lib/settings.mjs';

const settings = loadLaunchSettings(process.env);
await provisionDatabase(settings);
console.log(`provisioned database ${settings.database} with one role and schema per service`);
