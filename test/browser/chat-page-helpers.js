// Page-side helpers for web-chat.test.ts, loaded into the page with addInitScript. Plain JS so
// that the project's TypeScript build (no DOM lib) never sees browser globals.
'use strict';

globalThis.chatTest = {
  /** Draws a small landscape and answers its PNG bytes. */
  async drawPicture() {
    const canvas = document.createElement('canvas');
    canvas.width = 480;
    canvas.height = 300;
    const g = canvas.getContext('2d');
    const sky = g.createLinearGradient(0, 0, 0, 300);
    sky.addColorStop(0, '#ffb46b');
    sky.addColorStop(1, '#ff6f7d');
    g.fillStyle = sky;
    g.fillRect(0, 0, 480, 300);
    g.fillStyle = 'rgba(255, 255, 255, 0.65)';
    g.beginPath();
    g.arc(340, 105, 52, 0, Math.PI * 2);
    g.fill();
    const hill = (color, x0, peakX, peakY, x1) => {
      g.fillStyle = color;
      g.beginPath();
      g.moveTo(x0, 300);
      g.lineTo(peakX, peakY);
      g.lineTo(x1, 300);
      g.fill();
    };
    hill('#2d6a4f', -40, 150, 150, 330);
    hill('#1b4332', 170, 330, 185, 520);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    return Array.from(new Uint8Array(await blob.arrayBuffer()));
  },

  tickLog: [],

  /** From now on, records every tick state shown on the agent's messages, in order. */
  watchTicks() {
    const log = this.tickLog;
    const note = (ticks) => {
      const row = ticks && ticks.closest('[data-author="agent"]');
      const status = ticks && ticks.getAttribute('data-status');
      if (row && status) log.push([row.getAttribute('data-id'), status]);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.target.matches('[data-testid="ticks"]')) note(r.target);
        for (const node of r.addedNodes) {
          if (node instanceof Element) note(node.querySelector('[data-testid="ticks"]'));
        }
      }
    }).observe(document.getElementById('messages'), {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-status'],
    });
  },

  /** The tick states shown for one message, in order. */
  ticksShown(id) {
    return this.tickLog.filter(([m]) => m === id).map(([, s]) => s);
  },

  /** Whether the picture of message `id` has loaded at its natural width. */
  pictureLoaded(id, width) {
    const img = document.querySelector(`[data-testid="message"][data-id="${CSS.escape(id)}"] img.media-img`);
    return Boolean(img && img.complete && img.naturalWidth === width);
  },
};
