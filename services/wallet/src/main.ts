import { runServiceMain } from '@market/shared';
import { walletService } from './service';

runServiceMain(walletService);
