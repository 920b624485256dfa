import { runServiceMain } from '@market/shared';
import { notifyService } from './service';

runServiceMain(notifyService);
