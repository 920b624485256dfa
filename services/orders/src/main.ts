import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { ordersService } from './service';

runServiceMain(ordersService);
