import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { walletService } from './service';

runServiceMain(walletService);
