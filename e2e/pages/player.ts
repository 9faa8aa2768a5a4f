// Page object of the player: transport buttons, speed, the step and micro-step labels, the
// timeline scrubber with its markers.
import type { Locator, Page } from '@playwright/test';

export class PlayerWidget {
  readonly root: Locator;
  readonly stepLabel: Locator;
  readonly frameLabel: Locator;
  readonly start: Locator;
  readonly backOp: Locator;
  readonly back: Locator;
  readonly play: Locator;
  readonly forward: Locator;
  readonly forwardOp: Locator;
  readonly end: Locator;
  readonly slower: Locator;
  readonly faster: Locator;
  readonly speed: Locator;
  readonly scrubber: Locator;
  readonly markers: Locator;
  readonly startPaused: Locator;

  constructor(page: Page) {
    this.root = page.locator('[data-widget="player"]');
    this.stepLabel = this.root.getByTestId('step-label');
    this.frameLabel = this.root.getByTestId('frame-label');
    const b = (a: string) => this.root.locator(`button[data-action="${a}"]`);
    this.start = b('first');
    this.backOp = b('prev-op');
    this.back = b('prev');
    this.play = b('play');
    this.forward = b('next');
    this.forwardOp = b('next-op');
    this.end = b('last');
    this.slower = b('slower');
    this.faster = b('faster');
    this.speed = this.root.getByTestId('speed');
    this.scrubber = this.root.locator('input.scrubber');
    this.markers = this.root.locator('svg.markers rect');
    this.startPaused = this.root.getByLabel('start paused');
  }

  /** The operation (step) and micro-step shown: `{op, frame}` (frame -1 between operations). */
  async position(): Promise<{ op: number; frame: number }> {
    return {
      op: Number(await this.root.getAttribute('data-op')),
      frame: Number(await this.root.getAttribute('data-frame')),
    };
  }
}
