// Imported first by main.ts: tracing must start before the modules it instruments are loaded.
import { startTelemetry } from '@market/shared/telemetry';

startTelemetry('files', { uses: { database: true } });
