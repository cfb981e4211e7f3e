/**
 * `svc travel-rule inquiry-address`: the inquiry URL we give a TRP counterparty, and the same URL as
 * a travel address (TRP 3.1 and later), so operators take both from one place
 * (docs/going-live-trp.md, step 2). Prints JSON; reads the configuration only.
 */
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import type { CliCommand } from '../../cli/command';
import { createProviders } from '../../providers/index';

const DETAILS = [
  'Prints {inquiry_url, travel_address} for the directory VASP --vasp (SVC_TRAVEL_RULE_PROVIDER=trp).',
  'Hand it to the counterparty over the channel you agreed the exchange on; treat it as a credential.',
].join('\n');

export const travelRuleCommands: Record<string, CliCommand> = {
  'travel-rule inquiry-address': {
    summary: 'The TRP inquiry URL and travel address to give a counterparty VASP',
    usage: '--vasp VASP_ID',
    details: DETAILS,
    async run(ctx, args) {
      const { values } = parseArgs({
        args,
        options: { vasp: { type: 'string' } },
      });
      if (!values.vasp) throw new Error('--vasp is required (a vasp_id of the TRP directory)');
      const providers = createProviders(ctx.config, ctx.secrets, { metrics: new Registry(), log: ctx.log });
      const network = providers.travelRule;
      if (!network.inquiryAddressFor)
        throw new Error('the travel-rule provider is not trp (SVC_TRAVEL_RULE_PROVIDER=trp)');
      const address = network.inquiryAddressFor(values.vasp);
      if (!address) throw new Error(`${values.vasp} is not in the TRP directory`);
      ctx.out(
        JSON.stringify(
          {
            vasp_id: values.vasp,
            inquiry_url: address.inquiryUrl,
            travel_address: address.travelAddress,
          },
          null,
          2,
        ),
      );
    },
  },
};
