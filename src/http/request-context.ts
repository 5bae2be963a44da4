import type { RequestHandler } from 'express';
import { v7 as uuidv7 } from 'uuid';
import type { Principal } from '../domain/principal.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express augments its Request through this global.
  namespace Express {
    interface Request {
      id: string;
      principal?: Principal;
      rawBody?: Buffer;
    }
  }
}

// An incoming X-Request-Id is kept when it is safe to log and echo; otherwise we mint one.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  req.id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : uuidv7();
  res.set('X-Request-Id', req.id);
  next();
};
