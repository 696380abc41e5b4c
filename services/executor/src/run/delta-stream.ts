import { StreamMasker, type SecretMasker } from "@wf/shared/secrets";

const MAX_CHARS = 2048;
const MAX_DELAY_MS = 50;

/**
 * Gathers a streamed answer's pieces into `step_delta` batches (50 ms or 2 KB), so a fast model
 * costs a few events a second rather than one per token. Secrets are masked even when a value
 * arrives split over several pieces.
 */
export class DeltaStream {
  private text = "";
  private batch = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly mask: StreamMasker;

  constructor(
    masker: SecretMasker,
    private readonly send: (text: string, batch: number) => void,
  ) {
    this.mask = new StreamMasker(masker);
  }

  readonly push = (piece: string): void => {
    this.text += this.mask.push(piece);
    if (this.text.length >= MAX_CHARS) this.flush();
    else if (this.text) this.timer ??= setTimeout(() => this.flush(), MAX_DELAY_MS);
  };

  end(): void {
    this.text += this.mask.end();
    this.flush();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.text) return;
    const text = this.text;
    this.text = "";
    this.send(text, ++this.batch);
  }
}
