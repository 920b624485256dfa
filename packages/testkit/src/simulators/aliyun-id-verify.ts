import { startAliyunApi, type AliyunApiServer } from './aliyun-acs3';

/** How the simulated Alibaba Cloud ID verification answers the next Id2MetaVerify calls. */
export type AliyunIdVerifyMode =
  /** decided from the registered people: BizCode 1 (match), 2 (mismatch), 3 (no record) */
  | 'ok'
  /** a business refusal of the account (`Code: 412`, overdue) */
  | 'refused'
  /** HTTP 503 `ServiceUnavailable` */
  | 'down'
  /** never answers */
  | 'stall';

export interface AliyunIdVerifySimulator extends AliyunApiServer {
  mode: AliyunIdVerifyMode;
  /** the identities the registry knows: id number → name */
  people: Map<string, string>;
}

/**
 * A local Alibaba Cloud ID verification API (cloudauth 2019-03-07, Id2MetaVerify: name + id number)
 * for tests. Answers as the real one does: HTTP 200 with `Code` "200" and `ResultObject.BizCode`, a
 * business refusal in `Code`; requests not signed with the given AccessKey pair are refused
 * (aliyun-acs3.ts).
 */
export async function startAliyunIdVerifySimulator(accessKey: { id: string; secret: string }): Promise<AliyunIdVerifySimulator> {
  const state = { mode: 'ok' as AliyunIdVerifyMode, people: new Map<string, string>() };
  const server = await startAliyunApi(accessKey, {
    Id2MetaVerify: {
      version: '2019-03-07',
      answer(params) {
        const [paramType, idNumber, name] = ['ParamType', 'IdentifyNum', 'UserName'].map((k) => params.get(k));
        if (paramType !== 'normal' || !idNumber || !name) {
          return { status: 200, code: '401', body: { Code: '401', Message: '参数非法' } };
        }
        if (state.mode === 'stall') return 'stall';
        if (state.mode === 'down') {
          return { status: 503, code: 'ServiceUnavailable', body: { Code: 'ServiceUnavailable', Message: 'The request has failed due to a temporary failure of the server.' } };
        }
        if (state.mode === 'refused') return { status: 200, code: '412', body: { Code: '412', Message: '欠费中' } };
        const known = state.people.get(idNumber);
        const bizCode = known === undefined ? '3' : known === name ? '1' : '2';
        return { status: 200, code: `BizCode ${bizCode}`, body: { Code: '200', Message: 'success', ResultObject: { BizCode: bizCode } } };
      },
    },
  });
  return Object.assign(state, server);
}
