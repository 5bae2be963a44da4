// Jest globalTeardown: stops what global-setup.ts started and removes its temporary folder.
import './global-setup.ts';

export default async function globalTeardown(): Promise<void> {
  const stack = globalThis.__conveneTestStack;
  globalThis.__conveneTestStack = undefined;
  await stack?.stop();
}
