import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { Spinner } from '@/components/Spinner';

/** The otpauth:// URL drawn as a QR code (an SVG made in the browser: the secret never leaves it). */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setSvg(null);
    setFailed(false);
    QRCode.toString(value, { type: 'svg', errorCorrectionLevel: 'M', margin: 1, color: { dark: '#000000', light: '#ffffff' } })
      .then((s) => live && setSvg(s))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [value]);
  if (failed) return <p className="text-sm text-red-600">The QR code could not be drawn. Enter the secret below instead.</p>;
  return (
    <div
      role="img"
      aria-label={label}
      data-testid="totp-qr"
      className="flex size-44 items-center justify-center rounded-xl bg-white p-2 ring-1 ring-gray-200 dark:ring-gray-700 [&>svg]:size-full"
      // The SVG comes from the qrcode library, built from our own value.
      dangerouslySetInnerHTML={svg ? { __html: svg } : undefined}
    >
      {svg ? undefined : <Spinner label="Drawing QR code" />}
    </div>
  );
}
