/** Opcos: the client's operating companies and their Sub-TPP registration at the payment network. */
import { defineModule } from '../../platform/module';
import { createOpcoActivationWorker } from './opco-activation.worker';
import { registerSubTppJob } from './opco-network.service';
import { opcosRoutes } from './opcos.routes';

export const opcosModule = defineModule({
  name: 'opcos',
  api: [opcosRoutes],
  jobs: [registerSubTppJob],
  workers: (deps) => [createOpcoActivationWorker(deps)],
});
