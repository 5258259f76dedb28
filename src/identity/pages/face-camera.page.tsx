/** @jsxImportSource hono/jsx */
import type { FaceChallenge } from '../face/challenge.ts';
import type { FaceRetry } from '../flow.ts';
import { FaceRetryAlert } from './face-retry.tsx';
import { CsrfField, Layout, type PageProps } from './layout.tsx';

/** Production: a few camera frames, posted as a normal form so the 303 that follows is a navigation. */
export function CameraFacePage(
  props: PageProps & {
    action: string;
    retry?: FaceRetry;
    challenge: FaceChallenge & { answerWithin: number };
  },
) {
  const { m, challenge } = props;
  const script = `(() => {
  const start = document.getElementById('start');
  const video = document.getElementById('camera');
  const status = document.getElementById('face-status');
  const form = document.getElementById('face-form');
  const field = document.getElementById('frames');
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  start.hidden = false;
  // A page left open past its challenge's time (less the capture's) reloads for a fresh one.
  const answerBy = Date.now() + ${(challenge.answerWithin - 15) * 1000};
  start.addEventListener('click', async () => {
    if (Date.now() > answerBy) return location.reload();
    start.disabled = true;
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: 640, height: 480 }, audio: false });
    } catch (e) {
      status.textContent = ${JSON.stringify(m.faceCameraError)};
      start.disabled = false;
      return;
    }
    video.srcObject = stream;
    await video.play();
    status.textContent = ${JSON.stringify(m.faceCapturing)};
    const canvas = document.createElement('canvas');
    canvas.width = 480; canvas.height = 360;
    const frames = [];
    // The screen lights the face with the challenge's colours, one for each frame (face/challenge.ts).
    for (const colour of ${JSON.stringify(challenge.colours)}) {
      document.body.style.backgroundColor = colour;
      await wait(400);
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      frames.push(canvas.toDataURL('image/jpeg', 0.8));
    }
    document.body.style.backgroundColor = '';
    stream.getTracks().forEach((t) => t.stop());
    field.value = JSON.stringify(frames);
    form.submit();
  });
})();`;
  return (
    <Layout {...props} title={m.faceTitle}>
      <h1>{m.faceTitle}</h1>
      <p>{m.faceIntro}</p>
      <FaceRetryAlert m={m} retry={props.retry} />
      <video id="camera" muted playsinline aria-label={m.faceCameraLabel} />
      <p id="face-status" role="status" aria-live="polite" />
      <noscript>
        <p class="alert">{m.faceNoScript}</p>
      </noscript>
      <form method="post" action={props.action} id="face-form">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="frames" id="frames" value="" />
        <input type="hidden" name="challenge" value={challenge.value} />
        <button type="button" id="start" hidden>
          {m.faceStart}
        </button>
      </form>
      <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: script }} />
    </Layout>
  );
}
