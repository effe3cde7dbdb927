import * as RadixDialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { cn } from './cn';
import { CloseIcon } from './icons';

interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  /** Sheet from the bottom on small screens (e.g. the share modal). */
  sheetOnMobile?: boolean;
  className?: string;
  hideClose?: boolean;
  onOpenAutoFocus?: (event: Event) => void;
}

export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  footer,
  sheetOnMobile,
  className,
  hideClose,
  onOpenAutoFocus,
}: DialogProps) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-black/40 backdrop-blur-[1px] animate-fade-in" />
        <RadixDialog.Content
          className={cn(
            'fixed z-50 flex max-h-[90vh] flex-col overflow-y-auto bg-white p-6 shadow-xl animate-fade-in focus:outline-none dark:bg-gray-900 dark:text-gray-100',
            sheetOnMobile
              ? 'inset-x-0 bottom-0 rounded-t-2xl sm:inset-auto sm:top-1/2 sm:left-1/2 sm:w-full sm:max-w-md sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-2xl'
              : 'top-1/2 left-1/2 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-2xl',
            className,
          )}
          {...(description ? {} : { 'aria-describedby': undefined })}
          onOpenAutoFocus={onOpenAutoFocus}
        >
          <div className="mb-4 pr-8">
            <RadixDialog.Title className="text-lg font-semibold">{title}</RadixDialog.Title>
            {description && (
              <RadixDialog.Description className="mt-1 text-sm text-gray-600 dark:text-gray-400">
                {description}
              </RadixDialog.Description>
            )}
          </div>
          {children}
          {footer && <div className="mt-6 flex flex-wrap justify-end gap-2">{footer}</div>}
          {/* Last in DOM order so opening focuses the first field or action, not Close. */}
          {!hideClose && (
            <RadixDialog.Close
              aria-label="Close"
              className="absolute top-5 right-4 flex size-8 cursor-pointer items-center justify-center rounded-lg text-gray-500 hover:bg-gray-100 dark:hover:bg-gray-800"
            >
              <CloseIcon size={16} />
            </RadixDialog.Close>
          )}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
