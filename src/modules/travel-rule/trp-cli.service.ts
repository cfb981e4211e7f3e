/**
 * `svc travel-rule inquiry-address`: the inquiry URL we give a TRP counterparty, and the same URL as
 * a travel address (TRP 3.1 and later), so operators take both from one place
 * (docs/going-live-trp.md, step 2). Prints JSON; reads the configuration and, for `--client`, that
 * client's travel-rule settings.
 */
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import type { CliCommand } from '../../cli/command';
import { createProviders } from '../../providers/index';
import { findSettings } from './travel-rule.repo';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const DETAILS = [
  'Prints {inquiry_url, travel_address} for the directory VASP --vasp (SVC_TRAVEL_RULE_PROVIDER=trp).',
  'Without --client the URL is shared by all clients (the recipient is the owner of the beneficiary',
  'wallet); with --client it is made for that client: inquiries on it reach that client only, and',
  'its TRP identity (VASP name, LEI, our certificate) is answered at GET /identity?<its query> on the',
  'same host (where TRISA-based peers ask: path replaced, query kept) and at <its path>/identity.',
  'Hand it to the counterparty over the channel you agreed the exchange on; treat it as a credential.',
].join('\n');

export const travelRuleCommands: Record<string, CliCommand> = {
  'travel-rule inquiry-address': {
    summary: 'The TRP inquiry URL and travel address to give a counterparty VASP',
    usage: '--vasp VASP_ID [--client CLIENT_ID]',
    details: DETAILS,
    async run(ctx, args) {
      const { values } = parseArgs({
        args,
        options: { vasp: { type: 'string' }, client: { type: 'string' } },
      });
      if (!values.vasp) throw new Error('--vasp is required (a vasp_id of the TRP directory)');
      if (values.client !== undefined && !UUID.test(values.client))
        throw new Error('--client must be a client id (UUID)');
      const providers = createProviders(ctx.config, ctx.secrets, { metrics: new Registry(), log: ctx.log });
      const network = providers.travelRule;
      if (!network.inquiryAddressFor)
        throw new Error('the travel-rule provider is not trp (SVC_TRAVEL_RULE_PROVIDER=trp)');
      const address = network.inquiryAddressFor(values.vasp, values.client);
      if (!address) throw new Error(`${values.vasp} is not in the TRP directory`);
      const warnings: string[] = [];
      if (values.client) {
        const settings = await findSettings(ctx.db, values.client);
        if (!settings?.originatorVasp?.lei)
          warnings.push(
            'this client has no originator_vasp.lei in its travel-rule settings: its /identity answers 404',
          );
      }
      ctx.out(
        JSON.stringify(
          {
            vasp_id: values.vasp,
            client_id: values.client ?? null,
            inquiry_url: address.inquiryUrl,
            travel_address: address.travelAddress,
            ...(warnings.length ? { warnings } : {}),
          },
          null,
          2,
        ),
      );
    },
  },
};
