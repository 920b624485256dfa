import { runServiceMain } from '@market/shared';
import { ordersService } from './service';

runServiceMain(ordersService);
