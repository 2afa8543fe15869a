import { describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../src/cli/csv-records.ts';
import { parseCsvWatchlist, parseYamlWatchlist } from '../../src/cli/watchlist-file.ts';

/**
 * Watchlist CSV files as spreadsheets export them (issue 32): Excel's "CSV UTF-8" with a byte order
 * mark, and with `;` where the decimal mark is a comma; LibreOffice's quoted text fields; Google
 * Sheets' CRLF lines and the trailing rows of empty cells a formatted sheet exports.
 */
const SUI_TOKEN = `0x${'0'.repeat(63)}2::sui::SUI`;
const USDC = `0x${'d'.repeat(64)}::usdc::USDC`;
const SUI = '0x7d20dcdb2bca4f508ea9613994683eb4e76e9c4ed371169677c1be02aaf0b58e';
const EVM = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const SOLANA = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const BOM = '\uFEFF';

const EXPECTED = parseYamlWatchlist(
  `
tokens: [0x2::sui::SUI, ${USDC}]
addresses:
  - ${SUI}
  - { address: ${EVM}, datasets: [positions, nfts], chain: ethereum, protocols: [aave-v3, uniswap-v3], nft_chain: BASE }
  - { address: ${SOLANA}, datasets: nfts, nft_chain: SOL, pnl: true }
`,
  'w.yaml',
);

const EXPORTS: Record<string, string> = {
  // Excel, "CSV UTF-8 (comma delimited)": BOM, CRLF, a field with a comma quoted, a final CRLF.
  'Excel (BOM, comma)': `${BOM}${[
    'kind,value,datasets,chain,protocols,nft_chain,pnl',
    'token,0x2::sui::SUI,,,,,',
    `token,${USDC},,,,,`,
    `address,${SUI},,,,,`,
    `address,${EVM},"positions,nfts",ethereum,"aave-v3,uniswap-v3",BASE,FALSE`,
    `address,${SOLANA},nfts,,,SOL,TRUE`,
  ].join('\r\n')}\r\n`,
  // Excel where the list separator is ";" (most of Europe): lists keep their commas, unquoted.
  'Excel (BOM, semicolon)': `${BOM}${[
    'kind;value;datasets;chain;protocols;nft_chain;pnl',
    'token;0x2::sui::SUI;;;;;',
    `token;${USDC};;;;;`,
    `address;${SUI};;;;;`,
    `address;${EVM};positions,nfts;ethereum;aave-v3,uniswap-v3;BASE;FALSE`,
    `address;${SOLANA};nfts;;;SOL;TRUE`,
    ';;;;;;',
  ].join('\r\n')}\r\n`,
  // LibreOffice with "Quote all text cells": every text field quoted, LF lines.
  LibreOffice: `${[
    '"kind","value","datasets","chain","protocols","nft_chain","pnl"',
    '"token","0x2::sui::SUI",,,,,',
    `"token","${USDC}",,,,,`,
    `"address","${SUI}",,,,,`,
    `"address","${EVM}","positions,nfts","ethereum","aave-v3;uniswap-v3","BASE","false"`,
    `"address","${SOLANA}","nfts",,,"SOL","true"`,
  ].join('\n')}\n`,
  // Google Sheets: CRLF, no final line break, the sheet's empty rows exported as commas, and a
  // blank line among the rows.
  'Google Sheets': [
    'kind,value,datasets,chain,protocols,nft_chain,pnl',
    'token,0x2::sui::SUI,,,,,',
    `token,${USDC},,,,,`,
    '',
    `address,${SUI},,,,,`,
    `address,${EVM},"positions,nfts",ethereum,aave-v3;uniswap-v3,BASE,FALSE`,
    `address,${SOLANA},nfts,,,SOL,TRUE`,
    ',,,,,,',
    ',,,,,,',
    ' , ,,,,,',
  ].join('\r\n'),
};

describe('watchlist CSV files from spreadsheets', () => {
  it.each(Object.entries(EXPORTS))('reads a file as %s exports it', (_, text) => {
    expect(parseCsvWatchlist(text, 'w.csv')).toEqual(EXPECTED);
  });

  it('names the line a record is on, blank and empty rows counted', () => {
    const text = `${BOM}kind;value\r\n\r\n;\r\ntoken;0x2::sui::SUI\r\nwallet;x\r\n`;
    expect(parseCsvRecords(text, 'x.csv').records).toEqual([
      { line: 4, fields: { kind: 'token', value: '0x2::sui::SUI' } },
      { line: 5, fields: { kind: 'wallet', value: 'x' } },
    ]);
    expect(() => parseCsvWatchlist(text, 'x.csv')).toThrow(
      'invalid watchlist file x.csv, nothing changed: line 5: kind "wallet": expected token or address',
    );
  });

  it('says where a file breaks the CSV rules: line and column', () => {
    const refused: [string, string][] = [
      ['kind,value\ntoken,"0x2::sui::SUI\n', 'line 2, column 2: a quoted field is not closed'],
      ['kind,value\ntoken,0x2::"sui"\n', 'line 2, column 2: a quote inside a field that is not quoted'],
      ['kind,value\n"token"x,0x2::sui::SUI\n', 'line 2, column 1: a quoted field goes on after its closing quote'],
      ['kind,value,pnl\ntoken,0x2::sui::SUI\n', 'line 2 has 2 field(s), the header 3'],
      ['kind,value\ntoken,0x2::sui::SUI,true\n', 'line 2 has 3 field(s), the header 2'],
      ['kind,value\ntoken,"0x2::sui::SUI\n0x2::sui::SUI"\n', 'line 3, column 2 (value): a line break inside a field'],
    ];
    for (const [text, where] of refused) {
      expect(() => parseCsvWatchlist(text, 'x.csv'), text).toThrow(`invalid CSV file x.csv: ${where}`);
    }
    expect(() => parseCsvWatchlist(`${BOM}\r\n,,\r\n`, 'x.csv')).toThrow('invalid CSV file x.csv: no header');
  });

  it('takes empty columns past the header, as a sheet with stray empty cells exports them', () => {
    const text = 'kind,value,,\r\ntoken,0x2::sui::SUI,,\r\n,,,\r\n';
    expect(parseCsvWatchlist(text, 'x.csv')).toEqual({ tokens: [SUI_TOKEN], addresses: [] });
  });
});
