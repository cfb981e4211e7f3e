/** The hosted checkout: the payer's pages of a payment link, and their stylesheet. */
import { defineModule } from '../../platform/module';
import { checkoutRoutes } from './checkout.routes';

export const checkoutModule = defineModule({ name: 'checkout', pages: [checkoutRoutes] });
