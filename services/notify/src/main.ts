import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { notifyService } from './service';

runServiceMain(notifyService);
