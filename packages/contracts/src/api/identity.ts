import { Page, PageQuery, QueryBoolean, ReasonBody, EmptyBody, Timestamp, Id } from '../common';
import { z } from '../zod';
import { routesOf } from './route';
import { changeById } from './change-by-id';

const authRoute = routesOf('identity', { tags: ['auth'] });
const realnameRoute = routesOf('identity', { tags: ['realname'] });
const adminUserRoute = routesOf('identity', { tags: ['admin-users'] });

export const Phone = z
  .string()
  .trim()
  .regex(/^(\+?86)?1[3-9]\d{9}$/, 'must be a mainland mobile number (11 digits, +86 accepted)')
  .openapi({ example: '13800138000' });

export const RealnameStatus = z.enum(['unverified', 'pending', 'verified', 'failed']);

/** Up to 100 user ids, comma-separated: a query parameter that lists these users only. */
export const UserIdList = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(,[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}){0,99}$/i, 'must be 1 to 100 user ids, comma-separated')
  .openapi({ description: 'these users only: 1 to 100 ids, comma-separated', example: '0b6f3c1e-7d2a-4f5e-9c1b-2a3d4e5f6a7b' });

export const User = z
  .object({
    id: Id,
    phone_masked: z.string().openapi({ example: '138****8000' }),
    nickname: z.string(),
    avatar_url: z.string().nullable(),
    realname_status: RealnameStatus,
    frozen: z.boolean(),
    created_at: Timestamp,
  })
  .openapi('User');

/** What the back office sees of a user: the public view plus why and when it was frozen. */
export const UserAdminView = User.extend({
  frozen_reason: z.string().nullable(),
  frozen_at: Timestamp.nullable(),
}).openapi('UserAdminView');

export const TokenPair = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ description: 'access token lifetime in seconds', example: 900 }),
    user: User,
  })
  .openapi('TokenPair');

const ID_CHECK_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK_CHARS = '10X98765432';

/** GB 11643 check digit of an 18-character resident identity number. */
function residentIdCheckDigitOk(id: string): boolean {
  const sum = ID_CHECK_WEIGHTS.reduce((acc, w, i) => acc + w * Number(id[i]), 0);
  return ID_CHECK_CHARS[sum % 11] === id[17].toUpperCase();
}

export const ResidentIdNumber = z
  .string()
  .trim()
  // abort: the check digit is only computed on 18 characters (a shorter string made it throw: a 500)
  .regex(/^\d{17}[\dXx]$/, { message: 'must be an 18-character resident identity number', abort: true })
  .refine(residentIdCheckDigitOk, 'check digit does not match')
  .openapi({ example: '11010519491231002X' });

export const RealnameStatusView = z
  .object({
    status: RealnameStatus,
    real_name_masked: z.string().nullable().openapi({ example: '*明' }),
    id_number_masked: z.string().nullable().openapi({ example: '1101**********002X' }),
    verified_at: Timestamp.nullable(),
  })
  .openapi('RealnameStatusView');

export const RealnameStartResult = RealnameStatusView.extend({
  status: z.enum(['pending', 'verified', 'failed']),
}).openapi('RealnameStartResult');

export const sendSmsCode = authRoute('post /api/auth/sms/send', { id: 'sendSmsCode', auth: 'public', token: 'ignored',
  summary: 'Send an SMS login code to a phone number',
  description:
    'A phone whose account is frozen gets 403 USER_FROZEN and no message. 429 RATE_LIMITED within the 60 s resend interval or past a daily cap (per phone, and per client address, an IPv6 one counted as its /64); 429 SMS_BUDGET_SPENT when the codes this hour allows over every phone and address (SMS_HOURLY_BUDGET) have gone out; 429 SMS_FREQUENCY_LIMITED when the SMS provider itself refuses more messages to this phone; 503 SMS_UNAVAILABLE when the provider cannot be reached or fails (no code was sent or stored and the daily caps are not charged, so asking again is safe).',
  edge: { rate: 'sms' },
  body: z.object({ phone: Phone }).strict(),
  success: {
    status: 200,
    description: 'code sent',
    schema: z.object({
      expires_in: z.number().int().openapi({ example: 300 }),
      resend_after: z.number().int().openapi({ example: 60 }),
      dev_code: z.string().optional().openapi({ description: 'only with SMS_PROVIDER=log, which runs only under NODE_ENV=development' }),
    }),
  },
  errors: [400, 403, 429, 503],
});

export const loginWithSms = authRoute('post /api/auth/sms/login', { id: 'loginWithSms', auth: 'public', token: 'ignored',
  summary: 'Log in with phone and SMS code; an unknown phone registers a new user',
  edge: { rate: 'login' },
  body: z
    .object({
      phone: Phone,
      code: z.string().regex(/^\d{6}$/, 'must be 6 digits').openapi({ example: '123456' }),
    })
    .strict(),
  success: { status: 200, description: 'logged in', schema: TokenPair }, errors: [400, 403, 422, 429],
});

export const refreshToken = authRoute('post /api/auth/refresh', { id: 'refreshToken', auth: 'public', token: 'ignored',
  summary: 'Exchange a refresh token for a new pair (rotation)',
  description: 'The old refresh token stops working; reusing a rotated one revokes the whole family.',
  body: z.object({ refresh_token: z.string().min(1).max(2048) }).strict(),
  success: { status: 200, description: 'a new token pair', schema: TokenPair }, errors: [400, 401, 403],
});

export const logout = authRoute('post /api/auth/logout', { id: 'logout', auth: 'user',
  summary: 'Log out: the access token and its refresh family stop working at once',
  description: 'The body is optional; an absent body is the same as `{}`.',
  body: z.object({ refresh_token: z.string().min(1).max(2048).optional() }).strict(),
  success: { status: 204, description: 'logged out' }, errors: [400, 401],
});

export const getMe = authRoute('get /api/me', { id: 'getMe', auth: 'user',
  summary: 'Read the current user',
  success: { status: 200, description: 'the caller', schema: User }, errors: [401, 403],
});

export const startRealname = realnameRoute('post /api/realname/start', { id: 'startRealname', auth: 'user',
  summary: 'Start real-name verification',
  description:
    'Checks name and id number with the configured provider and records the outcome sealed. Attempts per user per day are limited (429 RATE_LIMITED); 429 REALNAME_PROVIDER_LIMITED when the provider caps checks of this identity for the day; 503 REALNAME_UNAVAILABLE when the provider cannot decide (nothing recorded, the attempt not counted).',
  body: z
    .object({
      real_name: z.string().trim().min(2).max(50).openapi({ example: '张明' }),
      id_number: ResidentIdNumber,
    })
    .strict(),
  success: { status: 200, description: 'verification started or decided', schema: RealnameStartResult }, errors: [400, 401, 403, 409, 429, 503],
});

export const getRealnameStatus = realnameRoute('get /api/realname/status', { id: 'getRealnameStatus', auth: 'user',
  summary: 'Read the caller’s real-name verification status',
  success: { status: 200, description: 'current status', schema: RealnameStatusView }, errors: [401, 403],
});

export const adminListUsers = adminUserRoute('get /api/admin/users', { id: 'adminListUsers', auth: 'admin', permission: 'users.read',
  summary: 'List users',
  query: PageQuery.extend({
    phone: Phone.optional(),
    frozen: QueryBoolean.optional(),
    realname_status: RealnameStatus.optional(),
    // how the back office names the people of a page (owners, renters, ledger rows) in one read
    ids: UserIdList.optional(),
  }),
  success: { status: 200, description: 'users, newest first', schema: Page(UserAdminView) }, errors: [400, 401, 403],
});

export const adminFreezeUser = adminUserRoute('post /api/admin/users/{id}/freeze', { id: 'adminFreezeUser', auth: 'admin', permission: 'users.freeze',
  summary: 'Freeze a user: every token it holds stops working at once',
  description:
    'Catalog learns of it from `user.frozen` within seconds: every online listing of the user goes offline ' +
    '(`listing.offlined`, reason `owner frozen`), and while frozen none of its listings can be approved ' +
    '(409 OWNER_FROZEN), so none is in public reads, search or orderable.',
  ...changeById(ReasonBody, { description: 'the frozen user', schema: UserAdminView }),
});

export const adminUnfreezeUser = adminUserRoute('post /api/admin/users/{id}/unfreeze', { id: 'adminUnfreezeUser', auth: 'admin', permission: 'users.freeze',
  summary: 'Unfreeze a user',
  description:
    'Catalog learns of it from `user.unfrozen`: the listings the freeze took offline go back online ' +
    '(`listing.restored`) unless the back office marked them abnormal meanwhile; listings awaiting review ' +
    'can be approved again.',
  ...changeById(EmptyBody, { description: 'the unfrozen user', schema: UserAdminView }),
});

export const identityRoutes = [
  sendSmsCode,
  loginWithSms,
  refreshToken,
  logout,
  getMe,
  startRealname,
  getRealnameStatus,
  adminListUsers,
  adminFreezeUser,
  adminUnfreezeUser,
];
