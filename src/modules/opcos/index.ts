/** Opcos: the client's operating companies and their Sub-TPP registration at the payment network. */
import { defineModule } from '../../platform/module';
import { registerSubTppJob } from './opco-network.service';
import { opcoActivationTimer } from './opco-review.service';
import { opcosRoutes } from './opcos.routes';

export const opcosModule = defineModule({
  name: 'opcos',
  api: [opcosRoutes],
  jobs: [registerSubTppJob],
  // The sandbox approval simulator: activates a submitted opco at activation_due_at.
  timers: [opcoActivationTimer],
});
