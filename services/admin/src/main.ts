import { runServiceMain } from '@market/shared';
import { adminService } from './service';

runServiceMain(adminService);
