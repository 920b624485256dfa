import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { identityService } from './service';

runServiceMain(identityService);
