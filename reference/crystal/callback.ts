import type { CrystalRequest, CrystalResponse } from '../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from './contract.ts';
import { snapshot } from './scripted.ts';

/** A crystal backed by a function: for tests that compute the reply from the request. Records requests too. */
export class CallbackCrystal implements Crystal {
  readonly contractVersion = CRYSTAL_CONTRACT_VERSION;
  readonly requests: CrystalRequest[] = [];
  readonly contextWindow: number | undefined;

  constructor(
    private readonly respond: (request: CrystalRequest, index: number) => CrystalResponse | Promise<CrystalResponse>,
    readonly name = 'callback',
    options: { contextWindow?: number } = {},
  ) {
    this.contextWindow = options.contextWindow;
  }

  async query(request: CrystalRequest): Promise<CrystalResponse> {
    this.requests.push(snapshot(request));
    return this.respond(request, this.requests.length - 1);
  }
}
