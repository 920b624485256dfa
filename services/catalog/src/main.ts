import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { catalogService } from './service';

runServiceMain(catalogService);
