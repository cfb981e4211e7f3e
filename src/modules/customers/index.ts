/** Customers: the client's users and business customers (the payers and verification subjects). */
import { defineModule } from '../../platform/module';
import { customersRoutes } from './customers.routes';

export const customersModule = defineModule({ name: 'customers', api: [customersRoutes] });
