import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { adminService } from './service';

runServiceMain(adminService);
